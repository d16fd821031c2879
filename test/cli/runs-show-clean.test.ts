/**
 * `devflow runs`, `devflow show`, `devflow clean` and the end of a finished run (issue 11,
 * "Leftovers"): every run left its coder checkout, verification checkout, artifacts and branch
 * behind, failed and killed ones too, and nothing listed or removed them or said how to take the
 * result. One real repository holds real tasks: two completed through the CLI (one with
 * `--keep-worktree`), one exhausted through the lane, one whose devflow process was SIGKILLed while
 * its coder ran (interrupted, its coder orphaned), and one whose devflow process is alive while the
 * commands run (its coder blocks). The user's checkout is compared byte for byte around each clean.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { DEMO_CASSETTE } from "../../src/fixtures/demo.js";
import { processGroupsDir, taskDir, verifyCheckoutDir } from "../../src/home/index.js";
import { taskWorktreePath } from "../../src/workspace/index.js";
import { cli } from "../support/cli.js";
import { startDevflow, waitForFile } from "../support/devflow-process.js";
import { CORRECT_FIX, coderScript, DEMO_REQUEST, runLane, tempDir } from "../support/lane-harness.js";
import { leftoverProcesses } from "../support/leftover-processes.js";
import {
  DEVFLOW_MAY_CHANGE,
  fingerprintChanges,
  fingerprintRepo,
  type RepoFingerprint,
} from "../support/repo-fingerprint.js";

const git = (repo: string, ...args: string[]) =>
  execFileSync("git", ["-C", repo, ...args], { encoding: "utf8" }).trim();
const branchExists = (repo: string, id: string) =>
  git(repo, "for-each-ref", "--format=%(refname)", `refs/heads/devflow/${id}`) !== "";

/** What changed in the user's checkout beyond the branches of `ids` (their refs and reflogs). */
function changedBeyond(before: RepoFingerprint, after: RepoFingerprint, ids: string[]) {
  const allowed = ids.flatMap((id) => DEVFLOW_MAY_CHANGE(id).filter((r) => /branch/.test(r.why)));
  return fingerprintChanges(before, after).filter((c) => !allowed.some((a) => a.matches(c)));
}

let repo: string;
let scratch: string;
let live: ReturnType<typeof startDevflow>;
let doneRun: Awaited<ReturnType<typeof cli>>;
let keptRun: Awaited<ReturnType<typeof cli>>;

/** A coder that says it started (a file named after the task) and then blocks until killed. */
function blockingCoder(task: string): string {
  const path = coderPath(task);
  writeFileSync(
    path,
    `import { writeFileSync } from "node:fs";
writeFileSync(${JSON.stringify(join(scratch, `started-${task}`))}, "x");
setInterval(() => {}, 1000);
`,
  );
  return `command:node ${JSON.stringify(path)}`;
}
const coderPath = (task: string) => join(scratch, `coder-${task}.mjs`);

const iterateArgs = (task: string, coder: string) => [
  "iterate",
  DEMO_REQUEST,
  "--repo",
  repo,
  "--task-id",
  task,
  "--coder",
  coder,
  "--replay",
  DEMO_CASSETTE,
  "--max-iterations",
  "3",
];

beforeAll(async () => {
  repo = createFixtureRepo("csv-import");
  scratch = tempDir("devflow-runs-");
  // An uncommitted edit in the user's checkout: the run starts from HEAD and says so.
  writeFileSync(join(repo, "NOTES.local.md"), "my notes\n");
  // completed through the CLI, default end of run (worktree removed), --json
  doneRun = await cli(...iterateArgs("done", coderScript(CORRECT_FIX)), "--json");
  // completed through the CLI with --keep-worktree, human summary
  keptRun = await cli(...iterateArgs("kept", coderScript(CORRECT_FIX)), "--keep-worktree");
  // exhausted through the lane (which keeps its checkout: the lane API leaves that to its driver)
  const failed = await runLane({
    repo,
    taskId: "failed",
    coder: coderScript(`console.error("no idea"); process.exit(1);`),
    lane: { maxJudgeAttempts: 1 },
  });
  expect(failed.result?.terminal.verdict).toBe("exhausted");
  // running: alive for the rest of the file (started first: a run's start sweeps what dead runs of
  // other tasks left, which would take the interrupted task's ledger away before clean sees it)
  live = startDevflow([...iterateArgs("live", blockingCoder("live")), "--json"]);
  await waitForFile(join(scratch, "started-live"), 120_000);
  // interrupted: the devflow process is SIGKILLed while its coder runs; the coder may be orphaned
  const stopped = startDevflow([...iterateArgs("stopped", blockingCoder("stopped")), "--json"]);
  await waitForFile(join(scratch, "started-stopped"), 120_000);
  process.kill(-(stopped.child.pid ?? 0), "SIGKILL");
  await stopped.exit;
}, 600_000);

afterAll(async () => {
  if (live?.child.pid) {
    try {
      process.kill(-live.child.pid, "SIGKILL");
    } catch {}
    await live.exit;
    // Its orphaned coder goes with a clean of the (now dead) task.
    await cli("clean", "-r", repo, "--task", "live", "--branches");
  }
}, 120_000);

describe("the end of a finished run", () => {
  it("removes the coder's checkout by default, keeps the branch, and --json says how to take the result", () => {
    expect(doneRun.code).toBe(0);
    const result = JSON.parse(doneRun.out.trim().split("\n").at(-1) ?? "{}");
    expect(result.type).toBe("result");
    expect(result.terminal.verdict).toBe("completed");
    expect(result.worktree_kept).toBe(false);
    expect(result.take_result).toEqual({
      merge: "git merge devflow/done",
      review: "git diff HEAD...devflow/done",
    });
    expect(existsSync(taskWorktreePath(repo, "done"))).toBe(false);
    expect(git(repo, "rev-parse", "devflow/done")).toBe(result.terminal.commit);
  });

  it("keeps the checkout with --keep-worktree and prints the take-the-result lines", () => {
    expect(keptRun.code).toBe(0);
    expect(existsSync(join(taskWorktreePath(repo, "kept"), "src", "csv-import.js"))).toBe(true);
    expect(keptRun.err).toContain(`worktree  ${taskWorktreePath(repo, "kept")}`);
    expect(keptRun.err).toMatch(/^to take the result: git merge devflow\/kept$/m);
    expect(keptRun.err).toMatch(/^to review it first: git diff HEAD\.\.\.devflow\/kept$/m);
  });

  it("says once that uncommitted edits are not part of the task and from which HEAD it starts", () => {
    const head = git(repo, "rev-parse", "HEAD").slice(0, 10);
    const notices = keptRun.err.split("\n").filter((l) => l.includes("uncommitted changes are not included"));
    // One line on stderr (however the progress lines are drawn), naming the HEAD and the count.
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain(
      `the task starts from HEAD ${head}; uncommitted changes are not included (1 path(s): NOTES.local.md)`,
    );
  });

  it("--resume of a finished task whose checkout was removed reports its verdict again (exit 0)", async () => {
    const again = await cli(
      "iterate",
      "--resume",
      "--task-id",
      "done",
      "--repo",
      repo,
      "--coder",
      coderScript(CORRECT_FIX),
      "--replay",
      DEMO_CASSETTE,
      "--json",
    );
    expect(again.err).toBe("");
    expect(again.code).toBe(0);
    expect(JSON.parse(again.out.trim().split("\n").at(-1) ?? "{}").terminal.verdict).toBe("completed");
  });
});

describe("devflow runs", () => {
  it("lists every task newest first with its state, branch, age and size; the live one as running", async () => {
    const run = await cli("runs", "-r", repo, "--json");
    expect(run.code).toBe(0);
    const { tasks } = JSON.parse(run.out);
    const byId = Object.fromEntries(tasks.map((t: { id: string }) => [t.id, t]));
    expect(tasks.map((t: { id: string }) => t.id)).toEqual(["stopped", "live", "failed", "kept", "done"]);
    expect(byId.done.state).toBe("completed");
    expect(byId.kept.state).toBe("completed");
    expect(byId.failed.state).toBe("exhausted");
    expect(byId.stopped.state).toBe("interrupted");
    expect(byId.live.state).toBe("running");
    for (const t of tasks) {
      expect(t.branch_exists).toBe(true);
      expect(t.bytes.artifacts).toBeGreaterThan(0);
      expect(t.bytes.total).toBe(t.bytes.worktree + t.bytes.verify + t.bytes.artifacts);
      expect(t.age_s).toBeGreaterThanOrEqual(0);
    }
    expect(byId.done.bytes.worktree).toBe(0);
    expect(byId.kept.bytes.worktree).toBeGreaterThan(0);
    expect(byId.done.branch_commit).toBe(byId.done.result_commit);

    const human = await cli("runs", "-r", repo);
    expect(human.out).toMatch(/^live +running +devflow\/live @ [0-9a-f]{10} +\d+[smh] +[\d.]+ [kM]?B$/m);
    expect(human.out).toMatch(/^done +completed +devflow\/done @ [0-9a-f]{10} /m);
    expect(human.out).toContain("5 task(s)");
  });
});

describe("devflow show", () => {
  it("prints the request, verdict, attempts with their checks, files, and the take-the-result commands", async () => {
    const run = await cli("show", "kept", "-r", repo);
    expect(run.code).toBe(0);
    expect(run.out).toContain(`request   ${DEMO_REQUEST}`);
    expect(run.out).toMatch(/^verdict {3}completed: completion gate passed in attempt 1$/m);
    expect(run.out).toMatch(
      /^ {2}attempt-001 {2}pass {2}coder ok {2}seam ✓ seam_integrity ✓ regression ✓ scope ✓ critic ✓$/m,
    );
    expect(run.out).toContain(
      `transcript ${join(taskDir(repo, "kept"), "attempts", "attempt-001", "coder_transcript.log")}`,
    );
    expect(run.out).toMatch(/^to take the result: git merge devflow\/kept$/m);

    const json = JSON.parse((await cli("show", "failed", "-r", repo, "--json")).out);
    expect(json.state).toBe("exhausted");
    expect(json.take_result).toBeNull();
    expect(json.attempts[0].checks.length).toBeGreaterThan(0);
    expect(existsSync(json.attempts[0].checks[0].path)).toBe(true);

    expect(json.resume_command).toBeNull();
  });

  // Regression: the line said `devflow iterate --resume --task-id stopped` only: run from another
  // directory it found no task, and run in the repository it handed the task to the default coder
  // (junie) although it ran with another. Fix: the repository by path and the recorded coder.
  it("says how to continue a stopped task: from any directory, with the coder it ran with", async () => {
    const stopped = await cli("show", "stopped", "-r", repo);
    const json = JSON.parse((await cli("show", "stopped", "-r", repo, "--json")).out);
    expect(stopped.out).toContain(`continue it: ${json.resume_command}\n`);
    // What a shell makes of it, word by word.
    const words = execFileSync(
      "sh",
      ["-c", `set -- ${json.resume_command.replace(/^devflow /, "")}; printf '%s\\n' "$@"`],
      {
        encoding: "utf8",
      },
    );
    expect(words.trimEnd().split("\n")).toEqual([
      "iterate",
      "--resume",
      "--task-id",
      "stopped",
      "-r",
      realpathSync(repo),
      "--coder",
      `command:node ${JSON.stringify(coderPath("stopped"))}`,
    ]);
  });

  // Regression: a bare `--resume` handed the task to the default coder (junie) although it ran
  // with another. Fix: refused in one line naming the recorded coder (never adopted silently: a
  // command: coder read from .devflow/ would run a command no flag asked for).
  it("refuses a bare --resume that would switch the task to the default or a configured coder (exit 2)", async () => {
    const before = readFileSync(join(taskDir(repo, "stopped"), "iterator_run.json"), "utf8");
    const bareResume = () =>
      cli("iterate", "--resume", "--task-id", "stopped", "-r", repo, "--replay", DEMO_CASSETTE);
    const run = await bareResume();
    expect(run.code).toBe(2);
    const recorded = `'command:node ${JSON.stringify(coderPath("stopped"))}'`;
    expect(run.err.trim().split("\n")).toEqual([
      `devflow: task stopped ran with the coder ${recorded}, not junie (default): pass --coder ${recorded} to continue with it, or --coder <name> to switch`,
    ]);
    // A coder named by the user's config file is not a choice made for this task either.
    const config = join(scratch, "user-config.json");
    writeFileSync(config, JSON.stringify({ coder: { backend: "claude" } }));
    const prior = process.env.DEVFLOW_CONFIG;
    process.env.DEVFLOW_CONFIG = config;
    try {
      const configured = await bareResume();
      expect(configured.code).toBe(2);
      expect(configured.err).toContain(`ran with the coder ${recorded}, not claude (user ${config})`);
    } finally {
      if (prior === undefined) delete process.env.DEVFLOW_CONFIG;
      else process.env.DEVFLOW_CONFIG = prior;
    }
    expect(readFileSync(join(taskDir(repo, "stopped"), "iterator_run.json"), "utf8")).toBe(before);
  });

  it("refuses an unknown task with a one-line error (exit 2)", async () => {
    const run = await cli("show", "nope", "-r", repo);
    expect(run.code).toBe(2);
    expect(run.err).toContain('no task "nope"');
  });
});

describe("devflow clean", () => {
  it("asks what to clean, and refuses a live task by name (exit 2)", async () => {
    const none = await cli("clean", "-r", repo);
    expect(none.code).toBe(2);
    // --orphans (ADR 0049) is a selection too.
    expect(none.err).toContain(
      "--task <id>, --older-than <duration> (e.g. 7d), --failed, --orphans or --idle",
    );
    const bad = await cli("clean", "-r", repo, "--older-than", "7");
    expect(bad.code).toBe(2);
    const liveOne = await cli("clean", "-r", repo, "--task", "live", "--branches");
    expect(liveOne.code).toBe(2);
    expect(liveOne.err).toContain("task live is running");
    expect(existsSync(taskWorktreePath(repo, "live"))).toBe(true);
  });

  it("--dry-run says what would go and removes nothing", async () => {
    const before = readdirSync(join(repo, ".devflow", "iterate")).sort();
    const run = await cli("clean", "-r", repo, "--failed", "--branches", "--dry-run");
    expect(run.code).toBe(0);
    expect(run.out).toMatch(
      /^would remove failed \(exhausted\): .*branch devflow\/failed would be deleted$/m,
    );
    expect(run.out).toMatch(/^would remove stopped \(interrupted\): /m);
    expect(run.out).toMatch(/^skipped live \(running\): a devflow run is working on it$/m);
    expect(readdirSync(join(repo, ".devflow", "iterate")).sort()).toEqual(before);
    expect(branchExists(repo, "failed")).toBe(true);
  });

  it("--failed --branches removes the failed and the interrupted task, ends the orphan, never touches the live one or the user's checkout", async () => {
    // The killed run recorded its coder's group; where the coder runs in a PID namespace it died
    // with devflow, elsewhere it is an orphan that clean must end.
    expect(readdirSync(processGroupsDir(repo, "stopped")).length).toBeGreaterThan(0);
    const before = fingerprintRepo(repo);
    const liveBranch = git(repo, "rev-parse", "devflow/live");
    const run = await cli("clean", "-r", repo, "--failed", "--branches", "--json");
    expect(run.code).toBe(0);
    const report = JSON.parse(run.out);
    expect(report.cleaned.map((c: { id: string }) => c.id).sort()).toEqual(["failed", "stopped"]);
    expect(report.skipped).toEqual([{ id: "live", state: "running", why: "a devflow run is working on it" }]);
    expect(report.freed_bytes).toBeGreaterThan(0);
    for (const id of ["failed", "stopped"]) {
      expect(existsSync(taskDir(repo, id))).toBe(false);
      expect(existsSync(taskWorktreePath(repo, id))).toBe(false);
      expect(existsSync(verifyCheckoutDir(repo, id))).toBe(false);
      expect(branchExists(repo, id)).toBe(false);
    }
    // The interrupted run's coder, if it outlived devflow, was ended with it.
    expect(leftoverProcesses(coderPath("stopped"), { marker: false })).toEqual([]);
    // The live task: every file and its branch where they were.
    expect(existsSync(taskWorktreePath(repo, "live"))).toBe(true);
    expect(existsSync(join(taskDir(repo, "live"), "iterator_run.json"))).toBe(true);
    expect(readdirSync(processGroupsDir(repo, "live")).length).toBeGreaterThan(0);
    expect(git(repo, "rev-parse", "devflow/live")).toBe(liveBranch);
    // The user's checkout and every other branch: byte-identical, but the two deleted branches.
    expect(changedBeyond(before, fingerprintRepo(repo), ["failed", "stopped"])).toEqual([]);
  });

  it("deletes a completed task's branch only when named; --older-than keeps it (the result)", async () => {
    let before = fingerprintRepo(repo);
    const named = await cli("clean", "-r", repo, "--task", "kept", "--branches");
    expect(named.code).toBe(0);
    expect(named.out).toMatch(/^removed kept \(completed\): .*branch devflow\/kept deleted$/m);
    expect(existsSync(taskDir(repo, "kept"))).toBe(false);
    expect(existsSync(taskWorktreePath(repo, "kept"))).toBe(false);
    expect(branchExists(repo, "kept")).toBe(false);
    expect(changedBeyond(before, fingerprintRepo(repo), ["kept"])).toEqual([]);

    before = fingerprintRepo(repo);
    const doneBranch = git(repo, "rev-parse", "devflow/done");
    const run = await cli("clean", "-r", repo, "--older-than", "1ms", "--branches");
    expect(run.code).toBe(0);
    expect(run.out).toMatch(
      /^removed done \(completed\): .*branch devflow\/done kept \(the result of a completed task/m,
    );
    expect(run.out).toMatch(/^skipped live \(running\)/m);
    expect(run.out).toMatch(/^freed [\d.]+ [kM]?B$/m);
    expect(existsSync(taskDir(repo, "done"))).toBe(false);
    expect(git(repo, "rev-parse", "devflow/done")).toBe(doneBranch);
    expect(fingerprintChanges(before, fingerprintRepo(repo))).toEqual([]);
    expect(existsSync(taskWorktreePath(repo, "live"))).toBe(true);
  });
});
