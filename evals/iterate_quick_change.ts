import { grade } from "./grade.js";
import { gradeObservedLane } from "./graders/profiles.js";
import { gradeRoute } from "./graders/routing.js";
import { loadRunArtifacts } from "./graders/run-artifacts.js";
import { gradeScope } from "./graders/scope.js";
import { gradeTaskArtifact, gradeTaskScale } from "./graders/task-artifact.js";
import type { Evaluator } from "./types.js";

/** A copy tweak stays a quick_change: small task, one seam, one file changed, completed. */
export const evaluate: Evaluator = async (scenario, run) => {
  const a = await loadRunArtifacts(run.taskDir);
  const e = scenario.expected;
  return grade([
    ...gradeRoute(run.routes, "request", "routes_to_iterate"),
    ...(await gradeObservedLane(a, run, e)),
    ...gradeTaskArtifact(a, e),
    ...gradeTaskScale(a, { criteria: 3, paths: 2 }),
    ...gradeScope(a, e),
  ]);
};
