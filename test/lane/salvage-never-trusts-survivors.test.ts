/**
 * Salvage never trusts a run whose processes outlived it (ADR 0026). Cause it pins: salvage lets a
 * timed-out coder's change reach verify; if the "no survivors" check ran after that decision, a
 * `setsid` child left by a timed-out coder could change the tree while it is verified. Fix: a
 * survivor makes the outcome `stopped` and blocks with process_survived before any salvage. Such a
 * process cannot be made on demand, so the containment's answer is forced; everything else is real.
 */
import { describe, expect, it, vi } from "vitest";
import { CoderReport } from "../../src/artifacts/schemas/index.js";
import { CORRECT_FIX, coderScript, runLane } from "../support/lane-harness.js";

vi.mock("../../src/process/containment.js", async (importActual) => {
  const actual = await importActual<typeof import("../../src/process/containment.js")>();
  return { ...actual, endMarkedProcesses: async () => [999_999] };
});

describe("a timed-out coder with a correct change and a surviving process", () => {
  it("is blocked with process_survived and never verified", async () => {
    const run = await runLane({
      coder: coderScript(`${CORRECT_FIX}\nawait new Promise(() => setInterval(() => {}, 1000));`),
      lane: { maxJudgeAttempts: 1, baseTimeoutMs: 1500, maxEscalations: 1 },
    });
    expect(run.error).toBeNull();
    expect(run.result?.terminal.verdict).toBe("blocked");
    expect(run.result?.terminal.reason).toMatch(
      /^process_survived: process\(es\) 999999 started by the coder/,
    );
    const report = await run.store.readAttemptJson("attempt-001", "coder_report.json", CoderReport);
    expect(report?.status).toBe("timeout");
    expect(report?.coder_outcome).toBe("stopped");
    const ends = run.events.filter((e) => e.phase === "end").map((e) => e.node);
    expect(ends).not.toContain("verify");
    expect(ends).not.toContain("commit");
  });
});
