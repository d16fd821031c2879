import { grade } from "./grade.js";
import { gradeObservedLane } from "./graders/profiles.js";
import { loadRunArtifacts } from "./graders/run-artifacts.js";
import { gradeSpawnDiscipline } from "./graders/supervision.js";
import { gradeTaskArtifact } from "./graders/task-artifact.js";
import type { Evaluator } from "./types.js";

/** investigate_first with honest unknowns; the coder only after the observation established the truth. */
export const evaluate: Evaluator = async (scenario, run) => {
  const a = await loadRunArtifacts(run.taskDir);
  const e = scenario.expected;
  return grade([
    ...(await gradeObservedLane(a, run, e)),
    ...gradeTaskArtifact(a, e),
    ...gradeSpawnDiscipline(a),
  ]);
};
