import { grade } from "./grade.js";
import { gradeObservedLane } from "./graders/profiles.js";
import { gradeRoute } from "./graders/routing.js";
import { loadRunArtifacts } from "./graders/run-artifacts.js";
import { gradeScope } from "./graders/scope.js";
import { gradeSpawnDiscipline } from "./graders/supervision.js";
import { gradeTaskArtifact } from "./graders/task-artifact.js";
import type { Evaluator } from "./types.js";

/** Router → framed error_fix → red seam → one scoped attempt → completed on green evidence. */
export const evaluate: Evaluator = async (scenario, run) => {
  const a = await loadRunArtifacts(run.taskDir);
  const e = scenario.expected;
  return grade([
    ...gradeRoute(run.routes, "request", "routes_to_iterate"),
    ...(await gradeObservedLane(a, run, e)),
    ...gradeTaskArtifact(a, e),
    ...gradeSpawnDiscipline(a),
    ...gradeScope(a, e),
  ]);
};
