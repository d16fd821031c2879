import { describe, expect, it } from "vitest";
import { emptyUsage, type GateVerdict, type Terminal } from "../artifacts/schemas/index.js";
import type { IterateResult } from "../lanes/outcome.js";
import { renderSummary } from "./summary.js";

const regressionSkipped: GateVerdict = {
  result: "pass",
  attempt_id: "attempt-001",
  reasons: [],
  checks: [
    { verifier: "seam", overall_result: "pass" },
    { verifier: "seam_integrity", overall_result: "pass" },
    { verifier: "scope", overall_result: "pass" },
    { verifier: "critic", overall_result: "pass" },
    { verifier: "regression", overall_result: "skipped" },
  ],
  caveats: [{ verifier: "regression", caveat: "not run, so regressions were not checked (no test command)" }],
};

function result(terminal: Partial<Terminal>): IterateResult {
  return {
    taskId: "t-1",
    terminal: {
      verdict: "completed",
      reason: "completion gate passed in attempt 1",
      branch: "devflow/t-1",
      commit: "0123456789abcdef",
      questions: [],
      at: "2025-01-01T00:00:00.000Z",
      ...terminal,
    },
    artifactDir: "/r/.devflow/iterate/t-1",
    worktree: "/r/.devflow/worktrees/t-1",
    branch: "devflow/t-1",
    attempts: 1,
    usage: { total: emptyUsage(), by_role: {}, by_attempt: {}, priced: true, unpriced_models: [] },
  };
}

describe("renderSummary", () => {
  it("lists what the gate checked and, with regression skipped, says it was not checked", () => {
    const text = renderSummary(result({ gate: regressionSkipped }));
    expect(text).toMatch(/^checked {3}seam, seam_integrity, scope, critic$/m);
    expect(text).not.toMatch(/^checked .*regression/m);
    expect(text).toContain(
      "not checked\n  - regression: not run, so regressions were not checked (no test command)",
    );
  });

  it("has no caveat section when every check ran", () => {
    const all: GateVerdict = {
      ...regressionSkipped,
      checks: regressionSkipped.checks.map((c) => ({ ...c, overall_result: "pass" })),
      caveats: [],
    };
    const text = renderSummary(result({ gate: all }));
    expect(text).toMatch(/^checked {3}seam, seam_integrity, scope, critic, regression$/m);
    expect(text).not.toContain("not checked");
  });

  it("has neither line when no gate decided the run", () => {
    const text = renderSummary(result({ verdict: "blocked", reason: "seam not confirmed" }));
    expect(text).not.toContain("checked");
  });

  it("says what to do next when the run ended with questions", () => {
    const text = renderSummary(
      result({
        verdict: "needs_more_context",
        reason: "needs answers",
        questions: ["Which field?"],
        branch: null,
        commit: null,
      }),
    );
    expect(text).toContain("questions\n  - Which field?\nnext      answer them in the request of a new run");
    expect(renderSummary(result({}))).not.toMatch(/^next/m);
  });
});
