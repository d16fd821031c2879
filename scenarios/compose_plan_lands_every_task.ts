import { composePlanScenario } from "./setups.js";

export const { scenario, evaluate } = composePlanScenario({
  name: "compose_plan_lands_every_task",
  description:
    "A three-task plan whose tasks each pass on the first attempt lands all three, stacked, on the integration branch; Verify and Review pass.",
  coder: "plan-coder-first-pass.mjs",
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
});
