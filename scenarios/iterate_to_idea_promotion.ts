import { defineScenario } from "./scenario.js";

export default defineScenario({
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
