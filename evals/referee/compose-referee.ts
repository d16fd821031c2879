import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Scenario } from "../../scenarios/scenario.js";
import { check } from "../grade.js";
import type { Check, ScenarioRun } from "../types.js";
import { HIDDEN_DIR } from "./hidden-tests.js";
import { cloneAt, git, refCommit, removeClone, type ShellRun, shell, writeFiles } from "./plain-git.js";
import { runHidden } from "./referee.js";
import { CASSETTES_DIR, seamOfCassette } from "./seam-definition.js";

/** What the referee reads of plan_run.json: plain JSON, never through devflow's schemas or store. */
interface PlanClaim {
  plan_id: string;
  state: string;
  integration_branch: string;
  base_commit: string;
  tasks: { plan_task_id: string; status: string; commit: string | null; replan?: number }[];
}

export interface ComposeRefereeOptions {
  timeoutMs?: number;
  hiddenDir?: string;
  cassetteDir?: string;
}

/**
 * The independent referee of a compose run (ADR 0058, after ADR 0027). From plain `git` and `sh`
 * on fresh clones it re-checks what plan_run.json claims:
 * - `referee_plan_branch_matches_record`: the integration branch holds exactly the commits recorded
 *   landed, in order, one on the other from the plan's base (no unverified work on it);
 * - `referee_plan_seams_green`: on a clone of the final tree, every landed task's seam, as the
 *   scenario's own cassette for that task defines it (its files written over the branch's), passes;
 * - `referee_plan_unlanded_red`: a task recorded failed has nothing of it on the branch: its seam
 *   still fails on the final tree;
 * - `referee_hidden_acceptance` (completed) or `referee_claim_matches_branch` (not completed): the
 *   hidden acceptance test passes on the final tree exactly when the plan claims completed.
 */
export async function refereeCompose(
  scenario: Scenario,
  run: ScenarioRun,
  opts: ComposeRefereeOptions = {},
): Promise<Check[]> {
  if (!run.repo || !run.planDir) return [];
  const file = join(run.planDir, "plan_run.json");
  if (!existsSync(file)) return [];
  const plan = JSON.parse(readFileSync(file, "utf8")) as PlanClaim;
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const cassettes = join(opts.cassetteDir ?? CASSETTES_DIR, scenario.cassette);
  const landed = plan.tasks.filter((t) => t.status === "landed");
  const tip = await refCommit(run.repo, `refs/heads/${plan.integration_branch}`);
  const checks: Check[] = [
    await branchMatches(
      run.repo,
      plan,
      landed.map((t) => t.commit ?? ""),
      tip,
    ),
  ];
  if (tip === null) return checks;

  const clone = await cloneAt(run.repo, plan.integration_branch);
  try {
    const seamOf = (t: PlanClaim["tasks"][number]) =>
      seamOfCassette(
        join(cassettes, t.replan ? `r${t.replan}-${t.plan_task_id}.json` : `${t.plan_task_id}.json`),
      );
    const red: string[] = [];
    for (const t of landed) {
      const seam = seamOf(t);
      if (!seam) {
        red.push(`${t.plan_task_id}: the scenario defines no seam for it`);
        continue;
      }
      const result = await runOnClone(clone, seam.files, seam.command, timeoutMs);
      if (result.exitCode !== 0)
        red.push(`${t.plan_task_id}'s seam \`${seam.command}\` exits ${result.exitCode} on the final tree`);
    }
    checks.push(check("referee_plan_seams_green", red.length === 0, red.join("; ")));
    const green: string[] = [];
    for (const t of plan.tasks.filter((t) => t.status === "failed")) {
      const seam = seamOf(t);
      if (!seam) continue;
      const result = await runOnClone(clone, seam.files, seam.command, timeoutMs);
      if (result.exitCode === 0)
        green.push(`${t.plan_task_id} is recorded failed, but its seam passes on ${plan.integration_branch}`);
    }
    checks.push(check("referee_plan_unlanded_red", green.length === 0, green.join("; ")));
    const hidden = await runHidden(clone, scenario, timeoutMs, opts.hiddenDir ?? HIDDEN_DIR);
    if (plan.state === "completed")
      checks.push(
        check(
          "referee_hidden_acceptance",
          hidden?.exitCode === 0,
          hidden
            ? `the plan claims completed, but the hidden acceptance test fails on ${plan.integration_branch}: ${hidden.output.slice(-300)}`
            : `the plan claims completed, but scenario ${scenario.name} names no hidden acceptance test`,
        ),
      );
    else if (hidden)
      checks.push(
        check(
          "referee_claim_matches_branch",
          hidden.exitCode !== 0,
          `the plan says ${plan.state}, but ${plan.integration_branch} passes the hidden acceptance test`,
        ),
      );
    return checks;
  } finally {
    removeClone(clone);
  }
}

/** The branch's first-parent history since the base is exactly the landed commits, in order. */
async function branchMatches(
  repo: string,
  plan: PlanClaim,
  landed: string[],
  tip: string | null,
): Promise<Check> {
  const criterion = "referee_plan_branch_matches_record";
  if (tip === null)
    return check(
      criterion,
      landed.length === 0,
      `${landed.length} task(s) recorded landed, but ${plan.integration_branch} does not exist`,
    );
  const onBranch = (
    await git(repo, ["rev-list", "--reverse", "--first-parent", `${plan.base_commit}..${tip}`])
  )
    .split("\n")
    .filter(Boolean);
  const merges = (await git(repo, ["rev-list", "--merges", `${plan.base_commit}..${tip}`])).trim();
  return check(
    criterion,
    JSON.stringify(onBranch) === JSON.stringify(landed) && merges === "",
    `${plan.integration_branch} holds ${onBranch.map((c) => c.slice(0, 10)).join(", ") || "nothing"} since the base; plan_run.json records ${landed.map((c) => c.slice(0, 10)).join(", ") || "nothing"} landed${merges ? " (and it has merges)" : ""}`,
  );
}

/** Writes files into the clone, runs the command, and puts the clone back as the branch has it. */
async function runOnClone(
  clone: string,
  files: Record<string, string>,
  command: string,
  timeoutMs: number,
): Promise<ShellRun> {
  writeFiles(clone, files);
  const result = await shell(clone, command, timeoutMs);
  await git(clone, ["checkout", "--quiet", "--", "."]).catch(() => undefined);
  await git(clone, ["clean", "--quiet", "-fd", "-e", "node_modules"]).catch(() => undefined);
  return result;
}
