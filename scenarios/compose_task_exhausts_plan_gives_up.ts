import { grade } from "../evals/grade.js";
import { gradePlanRun } from "../evals/graders/plan-run.js";
import type { Evaluator } from "../evals/types.js";
import { PLAN_DEMO_REQUEST } from "../src/index.js";
import { defineScenario } from "./scenario.js";

export const scenario = defineScenario({
  name: "compose_task_exhausts_plan_gives_up",
  description:
    "The second task never gets the duplicate check right: it exhausts its three attempts, the plan gives up with the first task landed and the third skipped.",
  kind: "compose",
  group: "compose",
  input: {
    request: PLAN_DEMO_REQUEST,
    priorTurns: [],
    fixture: "csv-import",
    coder: "plan-coder-never-repairs.mjs",
  },
  expected: {
    plan: {
      state: "gave_up",
      gaveUp: true,
      tasks: [
        ["T1", "landed", 1],
        ["T2", "failed", 3],
        ["T3", "skipped", 0],
      ],
      replans: { asked: 0, approved: 0 },
      verify: null,
      review: null,
    },
    checks: [
      "a task that exhausts its attempts ends the plan as gave_up",
      "the integration branch holds exactly the verified first task",
      "no Verify or Review runs on a plan that gave up",
    ],
  },
  cassette: "compose_task_exhausts_plan_gives_up",
  referee: { hidden: "csv-import-clean" },
});

/** Graded from plan_run.json and each task's own run record; the referee re-checks the branch and seams. */
export const evaluate: Evaluator = async (scenario, run) => grade(gradePlanRun(run, scenario.expected.plan));
