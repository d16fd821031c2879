import { grade } from "../evals/grade.js";
import { gradeFramerRun } from "../evals/graders/profiles.js";
import { loadRunArtifacts } from "../evals/graders/run-artifacts.js";
import { gradeTaskMentions } from "../evals/graders/task-artifact.js";
import type { Evaluator } from "../evals/types.js";
import { defineScenario } from "./scenario.js";

export const scenario = defineScenario({
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

/** Framer node alone: a messy report naming a function but no file → error_fix with its partial hints, facts apart from assumptions. */
export const evaluate: Evaluator = async (scenario, run) => {
  const a = await loadRunArtifacts(run.taskDir);
  const e = scenario.expected;
  return grade([...(await gradeFramerRun(a, run, e)), ...gradeTaskMentions(a, e)]);
};
