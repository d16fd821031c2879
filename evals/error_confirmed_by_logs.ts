import { grade } from "./grade.js";
import { gradeGreenConditionAlignment } from "./graders/envelopes.js";
import { gradeObservedLane } from "./graders/profiles.js";
import { loadRunArtifacts } from "./graders/run-artifacts.js";
import { gradeScope } from "./graders/scope.js";
import type { Evaluator } from "./types.js";

/** Log evidence, a confirmed repro, ready_for_coder, and seam verdicts that cite the green condition. */
export const evaluate: Evaluator = async (scenario, run) => {
  const a = await loadRunArtifacts(run.taskDir);
  const e = scenario.expected;
  return grade([
    ...(await gradeObservedLane(a, run, e, { requireLogEvidence: true })),
    ...gradeGreenConditionAlignment(a),
    ...gradeScope(a, e),
  ]);
};
