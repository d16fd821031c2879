import { grade } from "../evals/grade.js";
import { gradePlanRun } from "../evals/graders/plan-run.js";
import type { Evaluator } from "../evals/types.js";
import { PLAN_DEMO_REQUEST } from "../src/index.js";
import { defineScenario } from "./scenario.js";

export const scenario = defineScenario({
  name: "compose_plan_lands_every_task",
  description:
    "A three-task plan whose tasks each pass on the first attempt lands all three, stacked, on the integration branch; Verify and Review pass.",
  kind: "compose",
  group: "compose",
  input: {
    request: PLAN_DEMO_REQUEST,
    priorTurns: [],
    fixture: "csv-import",
    coder: "plan-coder-first-pass.mjs",
  },
  expected: {
    plan: {
      state: "completed",
      gaveUp: false,
      tasks: [
        ["T1", "landed", 1],
        ["T2", "landed", 1],
        ["T3", "landed", 1],
      ],
      replans: { asked: 0, approved: 0 },
      verify: "pass",
      review: "pass",
    },
    checks: [
      "every task lands on the previous one",
      "the integration branch holds exactly the three verified commits",
      "every seam passes again on the final tree",
    ],
  },
  cassette: "compose_plan_lands_every_task",
  referee: { hidden: "csv-import-clean" },
});

/** Graded from plan_run.json and each task's own run record; the referee re-checks the branch and seams. */
export const evaluate: Evaluator = async (scenario, run) => grade(gradePlanRun(run, scenario.expected.plan));
