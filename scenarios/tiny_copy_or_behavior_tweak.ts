import { defineScenario } from "./scenario.js";

export default defineScenario({
  name: "tiny_copy_or_behavior_tweak",
  description:
    "A one-word label change is framed as a quick_change with one observable criterion and one allowed file, not inflated into planning.",
  kind: "framer",
  group: "framing",
  input: {
    request: "Can the checkout button say 'Checkout' instead of 'Proceed'?",
    priorTurns: [],
    role: "framer",
    fixture: "cart-summary",
  },
  expected: {
    taskType: "quick_change",
    recommendedNextStep: "observe",
    surfaceHints: ["labels.js"],
    taskMentions: ["Checkout", "Proceed"],
    checks: [
      "Framer keeps scope small",
      "success criteria stay observable",
      "no inflation into broader planning",
      "uses task_details.quick_change rather than a separate task schema",
    ],
  },
  cassette: "tiny_copy_or_behavior_tweak.json",
});
