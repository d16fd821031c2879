import { composePlanScenario } from "./setups.js";

export const { scenario, evaluate } = composePlanScenario({
  name: "compose_review_replans_then_lands",
  description:
    "The plan forgot comment lines; the review judges it invalid, the re-plan is approved and adds the task, which lands; the revised plan passes Verify and Review.",
  coder: "plan-coder.mjs",
  answers: ["yes"],
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
});
