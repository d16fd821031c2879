import { grade } from "./grade.js";
import { gradeRepairContext } from "./graders/coder-report.js";
import { gradeCriteriaMet } from "./graders/completion.js";
import { gradeGreenConditionAlignment } from "./graders/envelopes.js";
import { gradeLaneRecord } from "./graders/lane-record.js";
import { loadRunArtifacts } from "./graders/run-artifacts.js";
import { gradeScope } from "./graders/scope.js";
import { gradeReadiness, gradeRejectsPrematureSuccess, gradeRespawns } from "./graders/supervision.js";
import type { Evaluator } from "./types.js";

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
