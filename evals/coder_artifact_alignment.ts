import { grade } from "./grade.js";
import { gradeAlignment } from "./graders/coder-report.js";
import { gradeGreenConditionAlignment } from "./graders/envelopes.js";
import { gradeCoderRun } from "./graders/profiles.js";
import { loadRunArtifacts } from "./graders/run-artifacts.js";
import type { Evaluator } from "./types.js";

/** One coder run: the change lands on the code the observation bounded, judged against its green condition. */
export const evaluate: Evaluator = async (scenario, run) => {
  const a = await loadRunArtifacts(run.taskDir);
  return grade([
    ...gradeCoderRun(a, run, scenario.expected),
    ...gradeAlignment(a),
    ...gradeGreenConditionAlignment(a),
  ]);
};
