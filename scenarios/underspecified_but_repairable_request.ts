import { grade } from "../evals/grade.js";
import { gradeObservedLane } from "../evals/graders/profiles.js";
import { loadRunArtifacts } from "../evals/graders/run-artifacts.js";
import { gradeSpawnDiscipline } from "../evals/graders/supervision.js";
import { gradeTaskArtifact } from "../evals/graders/task-artifact.js";
import type { Evaluator } from "../evals/types.js";
import { defineScenario } from "./scenario.js";

export const scenario = defineScenario({
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
  referee: { hidden: "cart-quantity-total" },
});

/** investigate_first with honest unknowns; the coder only after the observation established the truth. */
export const evaluate: Evaluator = async (scenario, run) => {
  const a = await loadRunArtifacts(run.taskDir);
  const e = scenario.expected;
  return grade([
    ...(await gradeObservedLane(a, run, e)),
    ...gradeTaskArtifact(a, e),
    ...gradeSpawnDiscipline(a),
  ]);
};
