import { grade } from "./grade.js";
import {
  gradeBlockerDetail,
  gradeCoderHonesty,
  gradeCoderReports,
  gradeRepairContext,
} from "./graders/coder-report.js";
import { gradeLaneRecord } from "./graders/lane-record.js";
import { loadRunArtifacts } from "./graders/run-artifacts.js";
import { gradeScope } from "./graders/scope.js";
import { gradeRespawns } from "./graders/supervision.js";
import type { Evaluator } from "./types.js";

/** The failed attempt reports honestly and actionably; the retry is repair-specific and succeeds. */
export const evaluate: Evaluator = async (scenario, run) => {
  const a = await loadRunArtifacts(run.taskDir);
  const e = scenario.expected;
  return grade([
    ...(await gradeLaneRecord(a, run, e)),
    ...gradeCoderReports(a),
    ...gradeCoderHonesty(a),
    ...gradeBlockerDetail(a),
    ...gradeRespawns(a),
    ...gradeRepairContext(a),
    ...gradeScope(a, e),
  ]);
};
