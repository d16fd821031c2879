/**
 * The sweep at start and on --resume (issue 10 item 4, ADR 0033). Bug: seam/test processes run in
 * their own process groups, so a SIGKILLed devflow left them running, unrecorded (a hung test was
 * still running after the resumed run completed), and `.base-*` checkouts and scratch dirs were
 * removed only in a `finally` a crash skips. Fix: runProcess records every child's group (with the
 * leader's start time) in the task's `process-groups/` before devflow waits on it; the next run
 * sweeps the groups of dead runs, of its own task and of every other task whose lock it can take,
 * and removes base checkouts and scratch dirs whose owner process is gone. A live task's groups and a
 * live process's scratch dir are never touched.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { DevflowEvent } from "../../src/artifacts/schemas/index.js";
import { lockTask, openTaskStore, processGroupsDir } from "../../src/home/index.js";
import { recordGroup, withGroupLedger } from "../../src/process/group-ledger.js";
import { processIsRunning } from "../../src/process/process-group.js";
import { detachedGroups } from "../support/detached-groups.js";
import { tempDir } from "../support/lane-harness.js";
import { leftoverProcesses } from "../support/leftover-processes.js";
import {
  type CliExit,
  crashRepo,
  devflow,
  leftoverCheckouts,
  TASK,
  TWO_ATTEMPT_CODER,
} from "./crash-harness.js";

const startGroup = detachedGroups();
/** A process in its own group, as devflow's children run; outside the test's temp dirs. */
const sleeper = () => startGroup("sleep", ["600"], "/");

async function deadPid(): Promise<number> {
  const child = spawn("true");
  await new Promise((r) => child.on("exit", r));
  return child.pid as number;
}

/** The host pid of the live process whose command line names `script` (0 when there is none). */
function hostPidRunning(script: string): number {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (args.some((a) => a.endsWith(script)) && processIsRunning(Number(entry))) return Number(entry);
    } catch {}
  }
  return 0;
}

/**
 * Waits for `path` while the CLI run `cli` is still running. Bug (session 16): this waited only for
 * the file, so a CLI that had already exited (a stale dist/ that bin/devflow.js refuses, after a
 * source edit without `npm run build`) read as "timed out waiting for hanging" two minutes later,
 * and the cause was blamed on the change under test. Fix: an exit before the file ends the wait
 * with the CLI's exit code and stderr.
 */
async function waitFor(path: string, ms: number, cli: Promise<CliExit>): Promise<void> {
  const exited: { exit: CliExit | null } = { exit: null };
  void cli.then((exit) => {
    exited.exit = exit;
  });
  const until = Date.now() + ms;
  while (!existsSync(path)) {
    const exit = exited.exit;
    if (exit !== null)
      throw new Error(`devflow exited (code ${exit.code}) before ${path} appeared: ${exit.stderr.trim()}`);
    if (Date.now() > until) throw new Error(`timed out waiting for ${path}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

it("a test run hung when devflow was SIGKILLed, and a dead run's checkouts, are swept by --resume; a live task's are not", async () => {
  const marks = tempDir("devflow-sweep-");
  const flag = join(marks, "hang");
  const hanging = join(marks, "hanging");
  const slow = join(marks, "slow-test.mjs");
  // The project's test command: hangs (once, while the flag exists) the first time it runs.
  writeFileSync(
    slow,
    `import { existsSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
if (existsSync(${JSON.stringify(flag)})) {
  writeFileSync(${JSON.stringify(hanging)}, String(process.pid));
  setInterval(() => {}, 1000);
} else {
  process.exit(spawnSync(process.execPath, ["--test"], { stdio: "inherit" }).status ?? 1);
}
`,
  );
  writeFileSync(flag, "");
  const run = crashRepo(["--test-cmd", `node ${slow}`], TWO_ATTEMPT_CODER);

  let cli = 0;
  const first = devflow(run, { onStart: (pid) => (cli = pid) });
  await waitFor(hanging, 120_000, first);
  process.kill(-cli, "SIGKILL");
  await first;
  // Its pid as this test sees it (test runs are confined in their own PID namespace, ADR 0020).
  const hungTest = hostPidRunning(slow);
  expect(hungTest).toBeGreaterThan(0);
  // The crash left it running: that is the leak the sweep is for.
  expect(processIsRunning(hungTest)).toBe(true);
  rmSync(flag);

  // What other dead runs left, and what live ones own.
  const dead = await deadPid();
  const worktrees = join(run.repo, ".devflow", "worktrees");
  mkdirSync(join(worktrees, `.base-${dead}-abcdef`), { recursive: true });
  mkdirSync(join(run.tmp, `devflow-scratch-${dead}-x`));
  mkdirSync(join(run.tmp, `devflow-scratch-${process.pid}-live`));
  // Another task whose run is live (this process holds its lock) and one whose run died.
  const liveGroup = sleeper();
  const deadGroup = sleeper();
  await withGroupLedger(processGroupsDir(run.repo, "live-task"), async () => recordGroup(liveGroup, "sleep"));
  await withGroupLedger(processGroupsDir(run.repo, "dead-task"), async () => recordGroup(deadGroup, "sleep"));
  const releaseLive = await lockTask(run.repo, "live-task");
  try {
    const resumed = await devflow(run, { resume: true });
    expect(resumed.code, resumed.stderr).toBe(0);
  } finally {
    await releaseLive();
  }

  expect(processIsRunning(hungTest)).toBe(false);
  expect(processIsRunning(deadGroup)).toBe(false);
  expect(processIsRunning(liveGroup)).toBe(true);
  expect(leftoverProcesses(run.root, { marker: false })).toEqual([]);
  expect(leftoverCheckouts(run)).toEqual([`TMPDIR/devflow-scratch-${process.pid}-live`]);
  const store = openTaskStore(run.repo, TASK);
  expect((await store.read("iterator_run"))?.terminal?.verdict).toBe("completed");
  const sweep = (await store.readJsonl("events.jsonl", DevflowEvent)).find((e) => e.node === "sweep");
  expect(sweep?.detail).toMatchObject({
    groups: expect.arrayContaining([
      { task_id: TASK, pgid: expect.any(Number), command: "sh", result: "killed" },
      { task_id: "dead-task", pgid: deadGroup, command: "sleep", result: "killed" },
    ]),
    base_checkouts: [join(worktrees, `.base-${dead}-abcdef`)],
    // And the hung seam run's own temp dir, left by the SIGKILLed devflow (run-command.ts).
    scratch_dirs: expect.arrayContaining([join(run.tmp, `devflow-scratch-${dead}-x`)]),
  });
}, 300_000);
