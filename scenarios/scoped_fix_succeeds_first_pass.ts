import { grade } from "../evals/grade.js";
import {
  gradeCoderHonesty,
  gradeCoderReports,
  gradeNarrowVerification,
} from "../evals/graders/coder-report.js";
import { gradeCriteriaMet } from "../evals/graders/completion.js";
import { gradeGreenConditionAlignment } from "../evals/graders/envelopes.js";
import { gradeLaneRecord } from "../evals/graders/lane-record.js";
import { loadRunArtifacts } from "../evals/graders/run-artifacts.js";
import { gradeScope } from "../evals/graders/scope.js";
import { gradeSpawnDiscipline } from "../evals/graders/supervision.js";
import type { Evaluator } from "../evals/types.js";
import { defineScenario } from "./scenario.js";

export const scenario = defineScenario({
  name: "scoped_fix_succeeds_first_pass",
  description:
    "A clearly located bug is fixed on the first attempt inside the scoped file; the run record points at attempt-scoped verifier artifacts whose shared fields say pass and aligned.",
  kind: "lane",
  group: "coder_attempt",
  input: {
    request:
      "The cart badge total ignores quantities: 2 × Tea at $4.00 shows '2 items · $4.00' instead of $8.00. Fix cartTotal in src/cart.js.",
    priorTurns: [],
    fixture: "cart-summary",
    coder: "cart-quantity-coder.mjs",
  },
  expected: {
    taskType: "error_fix",
    terminal: "completed",
    attempts: 1,
    changeWithin: ["src/cart.js"],
    checks: [
      "Coder stays in scoped files",
      "verification seam is relevant and narrow",
      "Iterator can validate completion without ambiguity",
      "run record references attempt-scoped verifier artifacts instead of inlining raw output",
      "verifier artifacts expose overall_result and green_condition_alignment",
    ],
  },
  cassette: "scoped_fix_succeeds_first_pass.json",
  referee: { hidden: "cart-quantity-total" },
});

/** One attempt, in scope, narrowly verified, completion backed by attempt-scoped envelopes. */
export const evaluate: Evaluator = async (scenario, run) => {
  const a = await loadRunArtifacts(run.taskDir);
  const e = scenario.expected;
  return grade([
    ...(await gradeLaneRecord(a, run, e)),
    ...gradeSpawnDiscipline(a),
    ...gradeScope(a, e),
    ...gradeNarrowVerification(a),
    ...gradeGreenConditionAlignment(a),
    ...gradeCriteriaMet(a),
    ...gradeCoderReports(a),
    ...gradeCoderHonesty(a),
  ]);
};
