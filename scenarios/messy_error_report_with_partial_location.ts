import { defineScenario } from "./scenario.js";

export default defineScenario({
  name: "messy_error_report_with_partial_location",
  description:
    "A messy error report that names a function but no file becomes an error_fix with the partial hints it gave, facts kept apart from the framer's assumptions, and task_details.error_fix in the shared base shape.",
  kind: "framer",
  group: "framing",
  input: {
    request:
      "checkout total is off!!! saw it on the cart badge thing, something in cartTotal maybe?? customer bought 3 mugs and it said $8.50",
    priorTurns: [],
    role: "framer",
    fixture: "cart-summary",
  },
  expected: {
    taskType: "error_fix",
    recommendedNextStep: "observe",
    surfaceHints: ["cartTotal"],
    taskMentions: ["$8.50", "3 mugs"],
    checks: [
      "Framer derives task_type=error_fix",
      "captures partial surface or route hints",
      "separates facts from assumptions",
      "uses the shared base task_artifact shape with task_details.error_fix",
    ],
  },
  cassette: "messy_error_report_with_partial_location.json",
});
