import { grade } from "./grade.js";
import { gradeCoderHonesty, gradeCoderReports, gradeNarrowVerification } from "./graders/coder-report.js";
import { gradeCriteriaMet } from "./graders/completion.js";
import { gradeGreenConditionAlignment } from "./graders/envelopes.js";
import { gradeLaneRecord } from "./graders/lane-record.js";
import { loadRunArtifacts } from "./graders/run-artifacts.js";
import { gradeScope } from "./graders/scope.js";
import { gradeSpawnDiscipline } from "./graders/supervision.js";
import type { Evaluator } from "./types.js";

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
