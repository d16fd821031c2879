import { grade } from "./grade.js";
import { gradeStoppedLane } from "./graders/profiles.js";
import { gradeRoute } from "./graders/routing.js";
import { loadRunArtifacts } from "./graders/run-artifacts.js";
import type { Evaluator } from "./types.js";

/** Routed to iterate, then handed to insight by the lane: no coder, an auditable promotion_handoff.json. */
export const evaluate: Evaluator = async (scenario, run) =>
  grade([
    ...gradeRoute(run.routes, "request", "routes_to_iterate"),
    ...(await gradeStoppedLane(await loadRunArtifacts(run.taskDir), run, scenario.expected)),
  ]);
