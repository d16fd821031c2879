import { describe, expect, it } from "vitest";
import { envelopeFor } from "../../test/support/verifier-envelopes.js";
import { completionGate } from "./completion-gate.js";
import { caveatLines, commitBody, passedVerifiers, verdictLine } from "./gate-verdict-text.js";

const gate = (regression: "pass" | "skipped" | "fail") =>
  completionGate(
    [
      envelopeFor("seam", "pass"),
      envelopeFor("seam_integrity", "pass"),
      envelopeFor("scope", "pass"),
      envelopeFor("critic", "pass"),
      envelopeFor("regression", regression),
    ],
    { attemptId: "attempt-001", requireRegression: false },
  );

describe("the words of a gate verdict", () => {
  it("names every verifier when all passed, with no caveat", () => {
    const v = gate("pass");
    expect(commitBody(v)).toBe(
      "Verified by devflow: seam, seam_integrity, scope, critic and regression passed.",
    );
    expect(verdictLine(v)).toBe("all verifiers passed");
    expect(caveatLines(v)).toEqual([]);
  });

  // Regression (merge of ADR 0056): extra_verifiers joined GATE_ORDER, and "all verifiers passed"
  // counted it, so a task without extra verifiers never read "all" again. Fix: "all" is every
  // verifier but extra_verifiers, which counts only when the task has some.
  it("says all verifiers passed with or without the task's extra verifiers, and names them when they ran", () => {
    const withExtra = completionGate(
      [
        envelopeFor("seam", "pass"),
        envelopeFor("seam_integrity", "pass"),
        envelopeFor("scope", "pass"),
        envelopeFor("critic", "pass"),
        envelopeFor("regression", "pass"),
        envelopeFor("extra_verifiers", "pass"),
      ],
      { attemptId: "attempt-001", requireRegression: false },
    );
    // ADR 0059, 0063: a pass of the blocks rests on their exit code (node programs guarded), and the verdict line says so.
    expect(verdictLine(withExtra)).toBe(
      "all verifiers passed; not checked: extra_verifiers: judged by exit code only for programs other than node: code the blocks load runs in their process and could end it early with exit 0 (a node program ended early by the attempt's code fails)",
    );
    expect(commitBody(withExtra)).toContain("regression and extra_verifiers passed.");
    expect(commitBody(withExtra)).toContain("Not checked: extra_verifiers: judged by exit code only");
    expect(verdictLine(gate("skipped"))).not.toBe("all verifiers passed");
  });

  it("with regression skipped, never claims it passed and says it was not checked", () => {
    const v = gate("skipped");
    expect(passedVerifiers(v)).toEqual(["seam", "seam_integrity", "scope", "critic"]);
    const body = commitBody(v);
    expect(body.split("\n")[0]).toBe("Verified by devflow: seam, seam_integrity, scope and critic passed.");
    expect(body).toMatch(
      /^Not checked: regression: not run, so regressions were not checked \(regression said skipped\)$/m,
    );
    expect(verdictLine(v)).toMatch(
      /^seam, seam_integrity, scope and critic passed; not checked: regression: /,
    );
  });

  it("a failing verdict's line is its reasons", () => {
    const v = gate("fail");
    expect(v.result).toBe("fail");
    expect(verdictLine(v)).toBe("regression: failed (regression said fail)");
  });
});
