/**
 * The crash suite (issue 10, ADR 0033): the real CLI, SIGKILLed by the test hook at every node
 * boundary (`<node>:end`: the body done, the checkpoint not written) and inside every node's side
 * effects, then `--resume`d, must reach the same verdict as an uninterrupted run: outcome and
 * reason, attempts and their verdicts, the committed tree (one devflow commit on the base), the
 * lessons; and leave no process, checkout, scratch dir or process-group record behind.
 *
 * Every point of KILL_POINTS the lane reaches in this scenario is hit at least twice: the points
 * of an attempt (code, verify, gate) in attempt 1 and in attempt 2, the once-per-run points (frame,
 * observe, readiness, repair, commit, a child just spawned) twice in a row, the second crash hitting
 * the node's re-run. Each chain is one task crashed again and again: every process is killed at its
 * point (asserted from the hook's stderr line, so an unreachable point fails loudly), the artifacts
 * are read back valid after every crash, and the last process runs to the end. (`replan`, `ask` and
 * `handoff` are not reached by a completing task: kill-off-the-completing-path.test.ts has their
 * chains. The `setup` chain here crashes the task before its lane's first checkpoint.)
 *
 * Bugs it pins: a crash inside `repair` appended the lesson twice (the next prompt listed it
 * twice); a crash after the commit's compare-and-swap made the resumed run's CAS fail and end the
 * task `blocked` ("the task branch changed after the gate passed"); a coder or seam/test process
 * started just before the crash outlived the resumed run.
 */
import { describe, expect, it } from "vitest";
import { concurrencyLimit } from "../support/concurrency-limit.js";
import { leftoverProcesses } from "../support/leftover-processes.js";
import {
  type CrashRepo,
  crashRepo,
  devflow,
  leftoverCheckouts,
  readAllArtifacts,
  type Verdict,
  verdictOf,
} from "./crash-harness.js";

/** The points of one attempt, in the order the lane reaches them. */
const ATTEMPT_POINTS = [
  "code.prompt-written",
  "code.coder-ran",
  "code:end",
  "verify.envelope-written",
  "verify:end",
  "gate.attempt-recorded",
  "gate:end",
];
const twice = (points: string[]) => points.flatMap((p) => [p, p]);

/**
 * Each chain is one task: the first process is killed at its first point (`point@n`: the n-th time
 * this process reaches it), every --resume at the next one (`@1`: the resumed process starts from the
 * last checkpoint). Four chains, so four tasks run at once.
 */
const CHAINS: Record<string, string[]> = {
  // Attempt 1's points, each once.
  attempt1: ATTEMPT_POINTS,
  // Attempt 2's points (the first process runs attempt 1 whole), then the commit twice in a row.
  attempt2: [
    "code.prompt-written@2",
    ...ATTEMPT_POINTS.slice(1),
    ...twice(["commit.ref-moved", "commit:end"]),
  ],
  // The once-per-run points before any coder, each twice in a row: the second crash hits the re-run.
  // `process.spawned` there is the regression baseline's test run, just started.
  framing: twice([
    "frame.task-written",
    "frame:end",
    "observe.seam-checked",
    "observe:end",
    "readiness:end",
    "process.spawned",
  ]),
  // The repair after attempt 1, twice in a row (the first process runs attempt 1 whole).
  repair: twice(["repair.lesson-appended", "repair:end"]),
  // The task's setup, each point twice in a row: before the run record (the task dir is all there
  // is), after it (the coder's checkout not made), and with both checkouts made but no checkpoint.
  setup: twice(["setup.locked", "setup.run-recorded", "setup.checkouts-made"]),
};

// Five chains and the baseline, four processes at once at most on a small shared machine.
const slot = concurrencyLimit(4);

async function crashChain(points: string[]): Promise<{ run: CrashRepo; verdict: Verdict }> {
  const run = crashRepo();
  for (const [i, point] of points.entries()) {
    const exit = await devflow(run, { resume: i > 0, killAt: point });
    const expected = point.includes("@") ? point : `${point}@1`;
    expect(exit.killedAt, `crash ${i + 1} (${point}) did not happen:\n${exit.stderr}`).toBe(expected);
    await readAllArtifacts(run);
  }
  const last = await devflow(run, { resume: true });
  expect(last.code, last.stderr).toBe(0);
  await readAllArtifacts(run);
  return { run, verdict: await verdictOf(run) };
}

describe("SIGKILL at every point, then --resume", () => {
  const baseline = slot(async () => {
    const run = crashRepo();
    const exit = await devflow(run);
    expect(exit.code, exit.stderr).toBe(0);
    return verdictOf(run);
  });
  // DEVFLOW_CRASH_CHAINS=repair,… runs only those chains (for a mutation proof by hand); default all.
  const only = process.env.DEVFLOW_CRASH_CHAINS?.split(",");
  const chains = Object.fromEntries(
    Object.entries(CHAINS)
      .filter(([name]) => !only || only.includes(name))
      .map(([name, points]) => [name, slot(() => crashChain(points))]),
  );
  // Settled here so a failure of one is reported by its own test, not as an unhandled rejection.
  for (const p of [baseline, ...Object.values(chains)]) p.catch(() => undefined);

  it("the uninterrupted run completes in two attempts with one lesson", async () => {
    const verdict = await baseline;
    expect(verdict).toMatchObject({
      verdict: "completed",
      attempts: [
        ["attempt-001", "fail"],
        ["attempt-002", "pass"],
      ],
      commitParentIsBase: true,
      lessons: [["attempt-001", "repair"]],
    });
  }, 300_000);

  for (const [name, chain] of Object.entries(chains)) {
    it(`chain "${name}": the same verdict, nothing leaked`, async () => {
      const { run, verdict } = await chain;
      expect(verdict).toEqual(await baseline);
      expect(leftoverCheckouts(run)).toEqual([]);
      expect(leftoverProcesses(run.root, { marker: false })).toEqual([]);
    }, 900_000);
  }
});
