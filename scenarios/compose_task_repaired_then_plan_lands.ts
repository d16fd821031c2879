import { composePlanScenario } from "./setups.js";

export const { scenario, evaluate } = composePlanScenario({
  name: "compose_task_repaired_then_plan_lands",
  description:
    "The second task's first attempt is a near miss; the repair lands it, the plan completes with three stacked commits.",
  coder: "plan-coder.mjs",
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
});
