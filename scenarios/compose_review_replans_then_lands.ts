import { grade } from "../evals/grade.js";
import { gradePlanRun } from "../evals/graders/plan-run.js";
import type { Evaluator } from "../evals/types.js";
import { PLAN_DEMO_REQUEST } from "../src/index.js";
import { defineScenario } from "./scenario.js";

export const scenario = defineScenario({
  name: "compose_review_replans_then_lands",
  description:
    "The plan forgot comment lines; the review judges it invalid, the re-plan is approved and adds the task, which lands; the revised plan passes Verify and Review.",
  kind: "compose",
  group: "compose",
  input: {
    request: PLAN_DEMO_REQUEST,
    priorTurns: [],
    fixture: "csv-import",
    coder: "plan-coder.mjs",
    answers: ["yes"],
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
      replans: { asked: 1, approved: 1 },
      verify: "pass",
      review: "pass",
    },
    checks: [
      "the review can judge the plan invalid (PLAN_INVALID)",
      "an approved re-plan keeps the landed tasks and adds what was missing",
      "the revised plan completes and verifies",
    ],
  },
  cassette: "compose_review_replans_then_lands",
  referee: { hidden: "csv-import-clean" },
});

/** Graded from plan_run.json and each task's own run record; the referee re-checks the branch and seams. */
export const evaluate: Evaluator = async (scenario, run) => grade(gradePlanRun(run, scenario.expected.plan));
