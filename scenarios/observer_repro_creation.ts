import { join } from "node:path";
import { grade } from "../evals/grade.js";
import { gradeReproIsNew } from "../evals/graders/observation.js";
import { gradeObserverRun } from "../evals/graders/profiles.js";
import { loadRunArtifacts } from "../evals/graders/run-artifacts.js";
import type { Evaluator } from "../evals/types.js";
import { FIXTURES_DIR } from "../src/index.js";
import { defineScenario } from "./scenario.js";

export const scenario = defineScenario({
  name: "observer_repro_creation",
  description:
    "No existing test shows the wrong cart total, so the Observer writes one narrow repro test, runs it red, and hands it over as the failing seam with an explicit green condition.",
  kind: "observer",
  group: "subagent",
  input: {
    request: "The cart badge total ignores quantities: two teas at $4.00 show $4.00.",
    priorTurns: [],
    role: "observer",
    fixture: "cart-summary",
    task: {
      title: "Cart total ignores quantities",
      task_type: "error_fix",
      task_details: {
        error_fix: {
          reported_error: "Two teas at $4.00 show a total of $4.00",
          error_location_hints: ["src/cart.js cartTotal"],
          logs_or_trace: null,
        },
        quick_change: null,
        targeted_improvement: null,
      },
      current_behavior: "The badge total ignores item quantities.",
      desired_behavior: "The badge total is the sum of price × quantity.",
      surface_hints: {
        files: ["src/cart.js"],
        routes: [],
        components: ["cart badge"],
        functions: ["cartTotal"],
      },
      facts: ["Two teas at $4.00 show $4.00"],
      assumptions: ["cartTotal computes the badge total"],
      blocking_unknowns: [],
      success_criteria: ["cartSummary for two teas at $4.00 returns '2 items · $8.00'"],
      scope_boundary: {
        statement: "The cart total only.",
        allowed_paths: ["src/cart.js", "test/**"],
        out_of_scope: ["price formatting"],
      },
      recommended_next_step: "observe",
    },
  },
  expected: {
    observationStatus: ["seam_created"],
    observationVerdict: "ready_for_coder",
    checks: [
      "Observer creates a narrow, reproducible repro",
      "the repro is a new test file, red on base",
      "expected green condition is explicit",
    ],
  },
  cassette: "observer_repro_creation.json",
});

/** Observer node alone: a new, narrow repro test, red on base, with an explicit green condition. */
export const evaluate: Evaluator = async (scenario, run) => {
  const a = await loadRunArtifacts(run.taskDir);
  return grade([
    ...gradeObserverRun(a, run, scenario.expected),
    ...gradeReproIsNew(a, run.worktree, join(FIXTURES_DIR, scenario.input.fixture)),
  ]);
};
