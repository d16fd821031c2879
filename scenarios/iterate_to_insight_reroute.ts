import { grade } from "../evals/grade.js";
import { gradeDownstreamRecord } from "../evals/graders/downstream.js";
import { gradeStoppedLane } from "../evals/graders/profiles.js";
import { gradeRoute } from "../evals/graders/routing.js";
import { loadRunArtifacts } from "../evals/graders/run-artifacts.js";
import type { Evaluator } from "../evals/types.js";
import { defineScenario } from "./scenario.js";

export const scenario = defineScenario({
  name: "iterate_to_insight_reroute",
  description:
    "A 'check it and fix it if broken' request enters iterate, but the Observer finds the behaviour is intended policy: the lane reroutes to insight with an auditable promotion_handoff.json instead of spawning a coder.",
  kind: "arm",
  group: "arm",
  input: {
    request:
      "Invites expire after a week, that seems wrong? Can you check the expiry logic and fix it if it's broken.",
    priorTurns: [],
    fixture: "invite-acceptance",
  },
  expected: {
    route: "iterate",
    observationVerdict: "reroute_insight",
    terminal: "rerouted",
    handoffTarget: "insight",
    runStates: ["framing", "observing", "awaiting_readiness", "rerouted"],
    checks: [
      "Iterator reroutes to insight instead of spawning Coder",
      "promotion_handoff.json records target_lane=insight",
      "no coder attempt",
    ],
  },
  cassette: "iterate_to_insight_reroute.json",
});

/**
 * Routed to iterate, then handed to insight by the lane: no coder, an auditable promotion_handoff.json
 * whose downstream_ref names the insight record the same conversation went on to write.
 */
export const evaluate: Evaluator = async (scenario, run) => {
  const artifacts = await loadRunArtifacts(run.taskDir);
  return grade([
    ...gradeRoute(run.routes, "request", "routes_to_iterate"),
    ...(await gradeStoppedLane(artifacts, run, scenario.expected)),
    ...gradeDownstreamRecord(run, artifacts, scenario.expected),
  ]);
};
