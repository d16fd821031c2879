import { grade } from "./grade.js";
import { gradeNarrowVerification } from "./graders/coder-report.js";
import { gradeGreenConditionAlignment } from "./graders/envelopes.js";
import { gradeLaneRecord } from "./graders/lane-record.js";
import { gradeObservation, gradeSeamRedOnBase } from "./graders/observation.js";
import { loadRunArtifacts } from "./graders/run-artifacts.js";
import { gradeScope } from "./graders/scope.js";
import { gradeTaskArtifact } from "./graders/task-artifact.js";
import type { Evaluator } from "./types.js";

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
