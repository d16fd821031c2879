import { composePlanScenario } from "./setups.js";

export const { scenario, evaluate } = composePlanScenario({
  name: "compose_task_exhausts_plan_gives_up",
  description:
    "The second task never gets the duplicate check right: it exhausts its three attempts, the plan gives up with the first task landed and the third skipped.",
  coder: "plan-coder-never-repairs.mjs",
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
});
