/**
 * The last line of class 2's defence (ADR 0020): when a process the coder started cannot be ended
 * (e.g. stuck in uninterruptible I/O, or outside devflow's reach), devflow refuses to verify. Such a
 * process cannot be made on demand, so the check's answer is forced here; everything else is real.
 */
import { describe, expect, it, vi } from "vitest";
import { CORRECT_FIX, coderScript, runLane } from "../support/lane-harness.js";

vi.mock("../../src/process/containment.js", async (importActual) => {
  const actual = await importActual<typeof import("../../src/process/containment.js")>();
  return { ...actual, endMarkedProcesses: async () => [999_999] };
});

describe("a coder process that survives", () => {
  it("stops the run before verification with process_survived", async () => {
    const run = await runLane({ coder: coderScript(CORRECT_FIX) });
    expect(run.error).toBeNull();
    expect(run.result?.terminal.verdict).toBe("blocked");
    expect(run.result?.terminal.reason).toMatch(
      /^process_survived: process\(es\) 999999 started by the coder/,
    );
    const ends = run.events.filter((e) => e.phase === "end").map((e) => e.node);
    expect(ends).not.toContain("verify");
    expect(ends).not.toContain("commit");
  });
});
