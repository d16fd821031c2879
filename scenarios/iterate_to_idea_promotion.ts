import { grade } from "../evals/grade.js";
import { gradeDownstreamRecord } from "../evals/graders/downstream.js";
import { gradeStoppedLane } from "../evals/graders/profiles.js";
import { gradeRoute } from "../evals/graders/routing.js";
import { loadRunArtifacts } from "../evals/graders/run-artifacts.js";
import type { Evaluator } from "../evals/types.js";
import { defineScenario } from "./scenario.js";

export const scenario = defineScenario({
  name: "iterate_to_idea_promotion",
  description:
    "A request phrased as a fix enters iterate, but the Observer finds it needs a team and role model that does not exist: the lane promotes to idea with promotion_handoff.json instead of hiding planning inside a task.",
  kind: "arm",
  group: "arm",
  input: {
    request:
      "When someone accepts an invite they should land in the right team with the right role. Fix invite acceptance so that works.",
    priorTurns: [],
    fixture: "invite-acceptance",
  },
  expected: {
    route: "iterate",
    observationVerdict: "promote_idea",
    terminal: "promoted",
    handoffTarget: "idea",
    runStates: ["framing", "observing", "awaiting_readiness", "promoted"],
    checks: [
      "Iterator promotes instead of hiding broader planning inside iterate",
      "promotion_handoff.json points back to the exact task and observation revisions",
      "no coder attempt",
    ],
  },
  cassette: "iterate_to_idea_promotion.json",
});

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
