import { grade } from "../evals/grade.js";
import { gradeNarrowVerification } from "../evals/graders/coder-report.js";
import { gradeGreenConditionAlignment } from "../evals/graders/envelopes.js";
import { gradeLaneRecord } from "../evals/graders/lane-record.js";
import { gradeObservation, gradeSeamRedOnBase } from "../evals/graders/observation.js";
import { loadRunArtifacts } from "../evals/graders/run-artifacts.js";
import { gradeScope } from "../evals/graders/scope.js";
import { gradeTaskArtifact } from "../evals/graders/task-artifact.js";
import type { Evaluator } from "../evals/types.js";
import { defineScenario } from "./scenario.js";

export const scenario = defineScenario({
  name: "targeted_improvement_red_seam",
  description:
    "A targeted improvement (reject duplicate emails) gets one bounded failing seam with an explicit green condition; the attempt's verifier envelopes state green_condition_alignment against that one seam.",
  kind: "lane",
  group: "observation",
  input: {
    request:
      "Within one import, a repeated email should be rejected with 'duplicate email' instead of importing the contact twice.",
    priorTurns: [],
    fixture: "csv-import",
    coder: "dedupe-email-coder.mjs",
  },
  expected: {
    taskType: "targeted_improvement",
    observationStatus: ["seam_created"],
    observationVerdict: "ready_for_coder",
    terminal: "completed",
    attempts: 1,
    changeWithin: ["src/csv-import.js"],
    checks: [
      "Observer creates a bounded failing seam",
      "expected green condition is explicit",
      "seam remains narrow enough for attempt-scoped verifier artifacts",
      "verifier records state green_condition_alignment against one explicit seam",
    ],
  },
  cassette: "targeted_improvement_red_seam.json",
  referee: { hidden: "csv-dedupe-email" },
});

/** One bounded red seam with an explicit green condition, and envelopes aligned against it. */
export const evaluate: Evaluator = async (scenario, run) => {
  const a = await loadRunArtifacts(run.taskDir);
  const e = scenario.expected;
  return grade([
    ...(await gradeLaneRecord(a, run, e)),
    ...gradeTaskArtifact(a, e),
    ...gradeObservation(a, e, { worktree: run.worktree }),
    ...gradeSeamRedOnBase(a),
    ...gradeGreenConditionAlignment(a),
    ...gradeNarrowVerification(a),
    ...gradeScope(a, e),
  ]);
};
