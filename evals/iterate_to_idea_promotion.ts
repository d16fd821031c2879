import { grade } from "./grade.js";
import { gradeDownstreamRecord } from "./graders/downstream.js";
import { gradeStoppedLane } from "./graders/profiles.js";
import { gradeRoute } from "./graders/routing.js";
import { loadRunArtifacts } from "./graders/run-artifacts.js";
import type { Evaluator } from "./types.js";

/**
 * Routed to iterate, then handed to idea by the lane: no coder, an auditable promotion_handoff.json
 * whose downstream_ref names the idea record the same conversation went on to write.
 */
export const evaluate: Evaluator = async (scenario, run) => {
  const artifacts = await loadRunArtifacts(run.taskDir);
  return grade([
    ...gradeRoute(run.routes, "request", "routes_to_iterate"),
    ...(await gradeStoppedLane(artifacts, run, scenario.expected)),
    ...gradeDownstreamRecord(run, artifacts, scenario.expected),
  ]);
};
