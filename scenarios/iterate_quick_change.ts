import { grade } from "../evals/grade.js";
import { gradeObservedLane } from "../evals/graders/profiles.js";
import { gradeRoute } from "../evals/graders/routing.js";
import { loadRunArtifacts } from "../evals/graders/run-artifacts.js";
import { gradeScope } from "../evals/graders/scope.js";
import { gradeTaskArtifact, gradeTaskScale } from "../evals/graders/task-artifact.js";
import type { Evaluator } from "../evals/types.js";
import { defineScenario } from "./scenario.js";

export const scenario = defineScenario({
  name: "iterate_quick_change",
  description:
    "A small copy tweak is routed to iterate and stays small: a quick_change with one target surface, a seam asserting the new text, and a one-file change.",
  kind: "arm",
  group: "arm",
  input: {
    request: "Change the empty-cart text from 'No items' to 'Your cart is empty'.",
    priorTurns: [],
    fixture: "cart-summary",
    coder: "cart-copy-coder.mjs",
  },
  expected: {
    route: "iterate",
    taskType: "quick_change",
    observationStatus: ["seam_created"],
    observationVerdict: "ready_for_coder",
    terminal: "completed",
    attempts: 1,
    runStates: ["framing", "observing", "ready_for_coder", "coding", "verifying", "completed"],
    changeWithin: ["src/labels.js"],
    checks: [
      "keep a small request in iterate instead of inflating it",
      "uses task_details.quick_change",
      "the change stays in the scoped file",
    ],
  },
  cassette: "iterate_quick_change.json",
  referee: { hidden: "cart-empty-copy" },
});

/** A copy tweak stays a quick_change: small task, one seam, one file changed, completed. */
export const evaluate: Evaluator = async (scenario, run) => {
  const a = await loadRunArtifacts(run.taskDir);
  const e = scenario.expected;
  return grade([
    ...gradeRoute(run.routes, "request", "routes_to_iterate"),
    ...(await gradeObservedLane(a, run, e)),
    ...gradeTaskArtifact(a, e),
    ...gradeTaskScale(a, { criteria: 3, paths: 2 }),
    ...gradeScope(a, e),
  ]);
};
