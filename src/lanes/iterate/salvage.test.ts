import { describe, expect, it } from "vitest";
import { CoderStatus } from "../../artifacts/schemas/index.js";
import { coderRunOutcome, isSalvaged, salvageNote } from "./salvage.js";

describe("coderRunOutcome", () => {
  it("salvages only a timed-out or crashed run that changed the tree", () => {
    const table = Object.fromEntries(
      CoderStatus.options.map((s) => [s, [coderRunOutcome(s, true), coderRunOutcome(s, false)]]),
    );
    expect(table).toEqual({
      ok: ["finished", "finished"],
      timeout: ["timed_out_partial", "timed_out"],
      error: ["crashed_partial", "crashed"],
      turn_limit: ["crashed_partial", "crashed"],
      // Never salvaged: devflow cannot trust the run (aborted, missing credentials, spend limits).
      aborted: ["stopped", "stopped"],
      auth: ["stopped", "stopped"],
      rate_limit: ["stopped", "stopped"],
      budget: ["stopped", "stopped"],
    });
  });

  it("isSalvaged is true only for the *_partial outcomes", () => {
    expect(isSalvaged("timed_out_partial")).toBe(true);
    expect(isSalvaged("crashed_partial")).toBe(true);
    for (const o of ["finished", "timed_out", "crashed", "stopped", undefined] as const)
      expect(isSalvaged(o)).toBe(false);
  });
});

describe("salvageNote", () => {
  const base = { status: "timeout", exit_code: null, timeout_ms: 1500 } as const;
  it("says how an unfinished coder ended, and nothing for a finished one", () => {
    expect(salvageNote({ ...base, coder_outcome: "timed_out_partial" })).toBe(
      "the coder did not finish (stopped at its 1500 ms timeout); devflow verified the change it left",
    );
    expect(
      salvageNote({ ...base, status: "error", exit_code: null, coder_outcome: "crashed_partial" }),
    ).toMatch(/it was killed by a signal/);
    expect(salvageNote({ ...base, status: "error", exit_code: 2, coder_outcome: "crashed_partial" })).toMatch(
      /it exited with code 2/,
    );
    expect(
      salvageNote({ ...base, status: "turn_limit", exit_code: 0, coder_outcome: "crashed_partial" }),
    ).toMatch(/it hit its turn limit/);
    expect(salvageNote({ ...base, status: "ok", exit_code: 0, coder_outcome: "finished" })).toBeNull();
    expect(salvageNote({ ...base, status: "ok", exit_code: 0 })).toBeNull();
  });
});
