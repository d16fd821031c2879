import { grade } from "../evals/grade.js";
import { gradePlanRun } from "../evals/graders/plan-run.js";
import type { Evaluator } from "../evals/types.js";
import { DEMO_REQUEST, PLAN_DEMO_REQUEST, type TaskFraming } from "../src/index.js";
import {
  defineScenario,
  type ExpectedBehaviour,
  type ExpectedPlan,
  type Scenario,
  type ScenarioInput,
} from "./scenario.js";

/**
 * Setups more than one scenario starts from, so a scenario that varies one thing (the Observer
 * lies, the coder special-cases the repro) is visibly the same run as the one it varies. Not a
 * scenario itself (index.ts leaves this file out).
 */

/** The cart-summary bug as the Framer hands it to the Observer: the total ignores quantities. */
export function cartTotalObserverInput(): ScenarioInput {
  return {
    request: "The cart badge total ignores quantities: two teas at $4.00 show $4.00.",
    priorTurns: [],
    role: "observer",
    fixture: "cart-summary",
    task: cartTotalTask(),
  };
}

function cartTotalTask(): TaskFraming {
  return {
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
  };
}

/** The demo request on csv-import, run by `coder` (a file under scenarios/coders/). */
export function trimEmailsLaneInput(coder: string): ScenarioInput {
  return { request: DEMO_REQUEST, priorTurns: [], fixture: "csv-import", coder };
}

/** attempt-001 is rejected, the coder is respawned once, attempt-002 completes within src/csv-import.js. */
export function repairedOnSecondAttempt(checks: string[]): ExpectedBehaviour {
  return {
    terminal: "completed",
    attempts: 2,
    runStates: [
      "ready_for_coder",
      "coding",
      "verifying",
      "needs_respawn",
      "coding",
      "verifying",
      "completed",
    ],
    changeWithin: ["src/csv-import.js"],
    checks,
  };
}

/**
 * A compose scenario on the plan demo: the idea planner plans PLAN_DEMO_REQUEST on a fresh
 * csv-import fixture and the compose lane runs it with `coder` (scenarios/coders/); its cassette
 * folder is named after it. Graded from plan_run.json and each task's own run record; the
 * independent referee re-checks the branch and the seams against the clean hidden acceptance test.
 */
export function composePlanScenario(def: {
  name: string;
  description: string;
  coder: string;
  /** Answers the run gives when asked (a re-plan's approval). */
  answers?: string[];
  plan: ExpectedPlan;
  checks: string[];
}): { scenario: Scenario; evaluate: Evaluator } {
  const scenario = defineScenario({
    name: def.name,
    description: def.description,
    kind: "compose",
    group: "compose",
    input: {
      request: PLAN_DEMO_REQUEST,
      priorTurns: [],
      fixture: "csv-import",
      coder: def.coder,
      ...(def.answers ? { answers: def.answers } : {}),
    },
    expected: { plan: def.plan, checks: def.checks },
    cassette: def.name,
    referee: { hidden: "csv-import-clean" },
  });
  const evaluate: Evaluator = async (s, run) => grade(gradePlanRun(run, s.expected.plan));
  return { scenario, evaluate };
}
