import { grade } from "../evals/grade.js";
import { gradeStoppedLane } from "../evals/graders/profiles.js";
import { loadRunArtifacts } from "../evals/graders/run-artifacts.js";
import type { Evaluator } from "../evals/types.js";
import { defineScenario } from "./scenario.js";

export const scenario = defineScenario({
  name: "reroute_to_insight_after_observation",
  description:
    "The Observer finds that rejecting rows without a name is deliberate: the user needs an explanation, so the Iterator reroutes to insight (target_lane=insight, downstream_ref null) instead of spawning a coder.",
  kind: "lane",
  group: "iterator_loop",
  input: {
    request: "Rows with an empty name get rejected on import - please look into what's going on there.",
    priorTurns: [],
    fixture: "csv-import",
  },
  expected: {
    observationVerdict: "reroute_insight",
    terminal: "rerouted",
    handoffTarget: "insight",
    runStates: ["framing", "observing", "awaiting_readiness", "rerouted"],
    checks: [
      "Observer discovers the user needed diagnosis, not implementation",
      "Iterator reroutes to insight instead of spawning Coder",
      "promotion_handoff.json records target_lane=insight",
      "downstream refs may be null, but the handoff record is present and auditable",
    ],
  },
  cassette: "reroute_to_insight_after_observation.json",
});

/** Diagnosis, not implementation: rerouted to insight with an auditable handoff, no coder spawned. */
export const evaluate: Evaluator = async (scenario, run) =>
  grade(await gradeStoppedLane(await loadRunArtifacts(run.taskDir), run, scenario.expected));
