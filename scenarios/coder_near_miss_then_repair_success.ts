import { grade } from "../evals/grade.js";
import { gradeRepairContext } from "../evals/graders/coder-report.js";
import { gradeCriteriaMet } from "../evals/graders/completion.js";
import { gradeGreenConditionAlignment } from "../evals/graders/envelopes.js";
import { gradeLaneRecord } from "../evals/graders/lane-record.js";
import { loadRunArtifacts } from "../evals/graders/run-artifacts.js";
import { gradeScope } from "../evals/graders/scope.js";
import { gradeReadiness, gradeRejectsPrematureSuccess, gradeRespawns } from "../evals/graders/supervision.js";
import type { Evaluator } from "../evals/types.js";
import { defineScenario } from "./scenario.js";
import { repairedOnSecondAttempt, trimEmailsLaneInput } from "./setups.js";

export const scenario = defineScenario({
  name: "coder_near_miss_then_repair_success",
  description:
    "The demo run: the coder's first attempt is a near miss that claims success; the Iterator rejects it from the red seam, respawns with an explicit reason and lessons, and attempt-002 converges on the green condition.",
  kind: "lane",
  group: "iterator_loop",
  input: trimEmailsLaneInput("near-miss-coder.mjs"),
  expected: repairedOnSecondAttempt([
    "Iterator rejects premature success",
    "respawn reason is explicit",
    "first attempt stores its summary in iterator_run and normalized verifier artifacts under attempts/<attempt_id>/",
    "first attempt uses attempt-001, second uses attempt-002",
    "second attempt converges on the scoped green condition",
    "run_state moves through needs_respawn to completed",
  ]),
  cassette: "demo.json",
  referee: { hidden: "csv-trim-email" },
});

/** The premature claim is rejected, the respawn explained and informed, and attempt-002 converges. */
export const evaluate: Evaluator = async (scenario, run) => {
  const a = await loadRunArtifacts(run.taskDir);
  const e = scenario.expected;
  return grade([
    ...(await gradeLaneRecord(a, run, e)),
    ...(await gradeReadiness(a)),
    ...gradeRejectsPrematureSuccess(a),
    ...gradeRespawns(a),
    ...gradeRepairContext(a),
    ...gradeGreenConditionAlignment(a),
    ...gradeCriteriaMet(a),
    ...gradeScope(a, e),
  ]);
};
