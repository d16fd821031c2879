import { grade } from "../evals/grade.js";
import { gradeFramerRun } from "../evals/graders/profiles.js";
import { loadRunArtifacts } from "../evals/graders/run-artifacts.js";
import { gradeTaskMentions, gradeTaskScale } from "../evals/graders/task-artifact.js";
import type { Evaluator } from "../evals/types.js";
import { defineScenario } from "./scenario.js";

export const scenario = defineScenario({
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

/** Framer node alone: a one-word tweak → quick_change, one observable criterion, one file: no inflation. */
export const evaluate: Evaluator = async (scenario, run) => {
  const a = await loadRunArtifacts(run.taskDir);
  const e = scenario.expected;
  return grade([
    ...(await gradeFramerRun(a, run, e)),
    ...gradeTaskMentions(a, e),
    ...gradeTaskScale(a, { criteria: 2, paths: 1 }),
  ]);
};
