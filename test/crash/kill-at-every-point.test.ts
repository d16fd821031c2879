/**
 * The crash suite (issue 10, ADR 0033): the real CLI, SIGKILLed by the test hook at every node
 * boundary (`<node>:end`: the body done, the checkpoint not written) and inside every node's side
 * effects, then `--resume`d, must reach the same verdict as an uninterrupted run: outcome and
 * reason, attempts and their verdicts, the committed tree (one devflow commit on the base), the
 * lessons; and leave no process, checkout, scratch dir or process-group record behind.
 *
 * Every point is hit at least twice: the points of an attempt (code, verify, gate) in attempt 1
 * and in attempt 2 (chain "in order"), the once-per-run points (frame, observe, readiness, repair,
 * commit, a child just spawned) twice in a row, the second crash hitting the node's re-run (chain
 * "twice in a row"). Each chain is one task crashed again and again: every process is killed at
 * its point (asserted from the hook's stderr line, so an unreachable point fails loudly), the
 * artifacts are read back valid after every crash, and the last process runs to the end.
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

/** Attempt 1's points in order, then the repair, then attempt 2's and the commit: each once. */
const ATTEMPT_POINTS = [
  "code.prompt-written",
  "code.coder-ran",
  "code:end",
  "verify.envelope-written",
  "verify:end",
  "gate.attempt-recorded",
  "gate:end",
];
const IN_ORDER = [
  "frame.task-written",
  "frame:end",
  "observe.seam-checked",
  "observe:end",
  "readiness:end",
  ...ATTEMPT_POINTS,
  "repair.lesson-appended",
  "repair:end",
  ...ATTEMPT_POINTS,
  "commit.ref-moved",
  "commit:end",
];
/** The once-per-run points, each crashed twice in a row (`process.spawned` there: the regression baseline just started). */
const ONCE_PER_RUN = [
  "frame.task-written",
  "frame:end",
  "observe.seam-checked",
  "observe:end",
  "readiness:end",
  "process.spawned",
  "repair.lesson-appended",
  "repair:end",
  "commit.ref-moved",
  "commit:end",
];
const TWICE_IN_A_ROW = ONCE_PER_RUN.flatMap((p) => [p, p]);

// Two chains at once at most: each process is a full node start on a small shared machine.
const slot = concurrencyLimit(2);

async function crashChain(points: string[]): Promise<{ run: CrashRepo; verdict: Verdict }> {
  const run = crashRepo();
  for (const [i, point] of points.entries()) {
    const exit = await devflow(run, { resume: i > 0, killAt: point });
    expect(exit.killedAt, `crash ${i + 1} (${point}) did not happen:\n${exit.stderr}`).toBe(`${point}@1`);
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
  const chains = {
    inOrder: slot(() => crashChain(IN_ORDER)),
    twiceInARow: slot(() => crashChain(TWICE_IN_A_ROW)),
  };
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
    }, 600_000);
  }
});
