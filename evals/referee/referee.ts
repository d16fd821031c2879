import { existsSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import type { Scenario } from "../../scenarios/scenario.js";
import { check } from "../grade.js";
import { loadRunArtifacts, type RunArtifacts } from "../graders/run-artifacts.js";
import type { Check, ScenarioRun } from "../types.js";
import { HIDDEN_DIR, HIDDEN_MOUNT, hiddenTests } from "./hidden-tests.js";
import { cloneAt, git, refCommit, removeClone, type ShellRun, shell, writeFiles } from "./plain-git.js";
import { CASSETTES_DIR, type SeamDefinition, seamOfScenario } from "./seam-definition.js";

export interface RefereeOptions {
  /** Per command (seam, hidden tests). */
  timeoutMs?: number;
  hiddenDir?: string;
  cassetteDir?: string;
}

const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * The independent referee (ADR 0027). It does not take devflow's word for anything: from a fresh
 * `git clone` of the fixture repo it re-checks each claim the run's artifacts make, with the seam
 * from the scenario's own definition and a hidden acceptance test no agent ever saw.
 *
 * - observation says "seam red on base" → the seam must fail on a clone of the base commit;
 * - terminal `completed` → the branch `devflow/<task_id>` holds exactly the recorded commit, built
 *   on the base, changing exactly the files the artifacts say, and on a clone of it the seam and
 *   the hidden acceptance test pass;
 * - any other terminal with a commit on the branch, where the scenario says it must not complete
 *   → that branch must not pass both (else devflow's "not done" is the lie).
 *
 * Criteria are named `referee_*`, so a report says the referee, not a grader, caught it.
 */
export async function refereeRun(
  scenario: Scenario,
  run: ScenarioRun,
  opts: RefereeOptions = {},
): Promise<Check[]> {
  if (!run.repo || !run.taskDir || !existsSync(run.taskDir)) return [];
  const a = await loadRunArtifacts(run.taskDir);
  const seam = seamOfScenario(scenario, opts.cassetteDir ?? CASSETTES_DIR);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const checks: Check[] = [];
  checks.push(...(await refereeRedOnBase(run.repo, a, seam, timeoutMs)));
  checks.push(...(await refereeBranch(scenario, run.repo, run.taskDir, a, seam, timeoutMs, opts)));
  return checks;
}

/** An observation that claims its seam is red on base: re-run it on a clone of the base commit. */
async function refereeRedOnBase(
  repo: string,
  a: RunArtifacts,
  seam: SeamDefinition | null,
  timeoutMs: number,
): Promise<Check[]> {
  const claimed = a.observation?.seam_check?.red === true;
  if (!claimed) return [];
  const criterion = "referee_seam_red_on_base";
  if (!seam)
    return [check(criterion, false, "devflow claims a seam red on base, but the scenario defines no seam")];
  const base = a.run?.workspace.base_commit ?? "HEAD";
  const clone = await cloneAt(repo, base);
  try {
    writeFiles(clone, seam.files);
    const result = await shell(clone, seam.command, timeoutMs);
    return [
      check(
        criterion,
        result.exitCode !== 0,
        `devflow recorded \`${seam.command}\` red on base ${base.slice(0, 10)}, but on a fresh clone it exits 0: the problem is not reproduced`,
      ),
    ];
  } finally {
    removeClone(clone);
  }
}

async function refereeBranch(
  scenario: Scenario,
  repo: string,
  taskDir: string,
  a: RunArtifacts,
  seam: SeamDefinition | null,
  timeoutMs: number,
  opts: RefereeOptions,
): Promise<Check[]> {
  const terminal = a.run?.terminal ?? null;
  const taskId = a.run?.task_id ?? basename(taskDir);
  const branch = `devflow/${taskId}`;
  const base = a.run?.workspace.base_commit ?? null;
  const tip = await refCommit(repo, `refs/heads/${branch}`);
  const completed = terminal?.verdict === "completed";
  const producedBranch = tip !== null && base !== null && tip !== base;
  if (!completed && !producedBranch) return [];
  if (completed && tip === null)
    return [
      check("referee_branch_matches_record", false, `devflow claims completed, but ${branch} does not exist`),
    ];

  const clone = await cloneAt(repo, branch);
  try {
    const checks: Check[] = [];
    if (completed) checks.push(await branchMatchesRecord(clone, taskDir, a, seam));
    const seamRun = seam ? await runSeam(clone, seam, timeoutMs) : null;
    const hidden = await runHidden(clone, scenario, timeoutMs, opts.hiddenDir ?? HIDDEN_DIR);
    if (completed) {
      checks.push(
        seamRun
          ? check(
              "referee_seam_green",
              seamRun.exitCode === 0,
              `devflow claims completed, but the scenario's seam \`${seam?.command}\` exits ${seamRun.exitCode} on a clean clone of ${branch}: ${excerpt(seamRun)}`,
            )
          : check("referee_seam_green", false, "devflow claims completed, but the scenario defines no seam"),
        hidden
          ? check(
              "referee_hidden_acceptance",
              hidden.exitCode === 0,
              `devflow claims completed, but the hidden acceptance test (scenarios/hidden/${scenario.referee?.hidden}) fails on a clean clone of ${branch}: ${excerpt(hidden)}`,
            )
          : check(
              "referee_hidden_acceptance",
              false,
              `devflow claims completed, but scenario ${scenario.name} names no hidden acceptance test (referee.hidden) with *.test.mjs files`,
            ),
      );
    } else if (scenario.expected.terminal !== "completed" && seamRun && hidden) {
      const passes = seamRun.exitCode === 0 && hidden.exitCode === 0;
      checks.push(
        check(
          "referee_claim_matches_branch",
          !passes,
          `devflow says ${terminal?.verdict ?? "nothing"} and the scenario says it must not complete, but ${branch} passes the seam and the hidden acceptance test`,
        ),
      );
    }
    return checks;
  } finally {
    removeClone(clone);
  }
}

/**
 * The branch is what the record says: its tip is the recorded commit, built on the recorded base,
 * and it changes exactly the seam files (with the scenario's content) plus the files of the last
 * attempt's cumulative diff, all read with plain git.
 */
async function branchMatchesRecord(
  clone: string,
  taskDir: string,
  a: RunArtifacts,
  seam: SeamDefinition | null,
): Promise<Check> {
  const criterion = "referee_branch_matches_record";
  const problems: string[] = [];
  const recorded = a.run?.terminal?.commit ?? null;
  const head = await git(clone, ["rev-parse", "HEAD"]);
  if (!recorded) problems.push("the completed terminal records no commit");
  else if (recorded !== head)
    problems.push(`the branch tip is ${head.slice(0, 10)}, the record says ${recorded.slice(0, 10)}`);
  const base = a.run?.workspace.base_commit ?? null;
  if (!base) problems.push("iterator_run records no base commit");
  else {
    try {
      await git(clone, ["merge-base", "--is-ancestor", base, head]);
      const changed = new Set(
        (await git(clone, ["diff", "--name-only", base, head])).split("\n").filter(Boolean),
      );
      const last = a.run?.attempts.at(-1)?.attempt_id;
      const claimed = new Set([
        ...Object.keys(seam?.files ?? {}),
        ...(last ? diffFiles(join(taskDir, "attempts", last, "cumulative.diff.patch")) : []),
      ]);
      const unclaimed = [...changed].filter((f) => !claimed.has(f));
      const missing = [...claimed].filter((f) => !changed.has(f));
      if (unclaimed.length > 0)
        problems.push(`the commit changes ${unclaimed.join(", ")}, which no artifact shows`);
      if (missing.length > 0)
        problems.push(`the artifacts show changes to ${missing.join(", ")}, not in the commit`);
      for (const [path, content] of Object.entries(seam?.files ?? {})) {
        const committed = await git(clone, ["show", `${head}:${path}`]).catch(() => null);
        if (committed !== null && committed !== content.trim())
          problems.push(`the committed seam file ${path} differs from the scenario's`);
      }
    } catch {
      problems.push(`the base commit ${base.slice(0, 10)} is not an ancestor of the branch`);
    }
  }
  return check(criterion, problems.length === 0, problems.join("; "));
}

/** Paths a `git diff` patch touches (both sides of a rename). */
function diffFiles(patch: string): string[] {
  if (!existsSync(patch)) return [];
  const files = new Set<string>();
  for (const m of readFileSync(patch, "utf8").matchAll(/^diff --git a\/(\S+) b\/(\S+)$/gm)) {
    if (m[1]) files.add(m[1]);
    if (m[2]) files.add(m[2]);
  }
  return [...files];
}

/** The seam from the scenario's definition: its files written over whatever the branch holds. */
async function runSeam(clone: string, seam: SeamDefinition, timeoutMs: number): Promise<ShellRun> {
  writeFiles(clone, seam.files);
  const result = await shell(clone, seam.command, timeoutMs);
  await git(clone, ["checkout", "--quiet", "--", "."]).catch(() => undefined);
  return result;
}

/** The scenario's hidden acceptance tests, copied into the clone and run with `node --test`. */
export async function runHidden(
  clone: string,
  scenario: Scenario,
  timeoutMs: number,
  hiddenDir: string,
): Promise<ShellRun | null> {
  const name = scenario.referee?.hidden;
  if (!name) return null;
  const tests = hiddenTests(name, hiddenDir);
  const files = Object.keys(tests);
  if (files.length === 0) return null;
  writeFiles(join(clone, HIDDEN_MOUNT), Object.fromEntries(files.map((f) => [f, tests[f] ?? ""])));
  const paths = files.map((f) => JSON.stringify(`${HIDDEN_MOUNT}/${f}`)).join(" ");
  return shell(clone, `node --test ${paths}`, timeoutMs);
}

function excerpt(run: ShellRun): string {
  const lines = run.output.split("\n").filter((l) => /not ok|Error|assert|expected|actual/i.test(l));
  return (lines.slice(0, 4).join(" | ") || run.output.slice(-300)).trim();
}
