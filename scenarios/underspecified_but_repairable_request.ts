import { defineScenario } from "./scenario.js";

export default defineScenario({
  name: "underspecified_but_repairable_request",
  description:
    "'The cart total looks wrong sometimes' is framed honestly (investigate_first, a blocking unknown); the Observer then establishes the truth with a red repro, and only then does the Iterator let the coder in.",
  kind: "lane",
  group: "framing",
  input: {
    request: "The cart total looks wrong sometimes. Not sure when.",
    priorTurns: [],
    fixture: "cart-summary",
    coder: "cart-quantity-coder.mjs",
  },
  expected: {
    taskType: "error_fix",
    recommendedNextStep: "investigate_first",
    observationStatus: ["seam_created", "confirmed"],
    observationVerdict: "ready_for_coder",
    terminal: "completed",
    runStates: ["framing", "observing", "ready_for_coder", "coding", "completed"],
    changeWithin: ["src/cart.js"],
    checks: [
      "Framer recommends investigate_first",
      "task artifact stays honest about unknowns",
      "Iterator does not move to ready_for_coder until observation truth exists",
    ],
  },
  cassette: "underspecified_but_repairable_request.json",
});
