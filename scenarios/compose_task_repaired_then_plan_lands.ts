import { grade } from "../evals/grade.js";
import { gradePlanRun } from "../evals/graders/plan-run.js";
import type { Evaluator } from "../evals/types.js";
import { PLAN_DEMO_REQUEST } from "../src/index.js";
import { defineScenario } from "./scenario.js";

export const scenario = defineScenario({
  name: "compose_task_repaired_then_plan_lands",
  description:
    "The second task's first attempt is a near miss; the repair lands it, the plan completes with three stacked commits.",
  kind: "compose",
  group: "compose",
  input: {
    request: PLAN_DEMO_REQUEST,
    priorTurns: [],
    fixture: "csv-import",
    coder: "plan-coder.mjs",
  },
  expected: {
    plan: {
      state: "completed",
      gaveUp: false,
      tasks: [
        ["T1", "landed", 1],
        ["T2", "landed", 2],
        ["T3", "landed", 1],
      ],
      replans: { asked: 0, approved: 0 },
      verify: "pass",
      review: "pass",
    },
    checks: [
      "a task that needs a repair gets it within its attempts",
      "the repaired commit, not the near miss, lands",
      "Verify and Review pass on the final tree",
    ],
  },
  cassette: "compose_task_repaired_then_plan_lands",
  referee: { hidden: "csv-import-clean" },
});

/** Graded from plan_run.json and each task's own run record; the referee re-checks the branch and seams. */
export const evaluate: Evaluator = async (scenario, run) => grade(gradePlanRun(run, scenario.expected.plan));
