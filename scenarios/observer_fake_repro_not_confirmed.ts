import { check, grade } from "../evals/grade.js";
import { gradeNodesRan, gradeRunBasics } from "../evals/graders/common.js";
import { gradeObservation } from "../evals/graders/observation.js";
import { loadRunArtifacts } from "../evals/graders/run-artifacts.js";
import type { Check, Evaluator } from "../evals/types.js";
import { defineScenario } from "./scenario.js";
import { cartTotalObserverInput } from "./setups.js";

/**
 * The red-on-base check is what stands between a lying Observer and the coder. Without this
 * scenario, a red-on-base check mutated to always confirm went unnoticed (issue 9, class 10): every
 * other Observer in the suite tells the truth.
 */
export const scenario = defineScenario({
  name: "observer_fake_repro_not_confirmed",
  description:
    'The Observer hands over a "repro" that already passes on the untouched code and claims seam_created; devflow\'s own run of it on base is green, so the observation is recorded not_confirmed and the lane asks for context instead of coding.',
  kind: "observer",
  group: "observation",
  input: cartTotalObserverInput(),
  expected: {
    observationStatus: ["not_confirmed"],
    observationVerdict: "needs_more_context",
    checks: [
      "a seam that passes on base is never confirmed, whatever the Observer claims",
      "the observation is downgraded to not_confirmed and asks how to reproduce",
    ],
  },
  cassette: "observer_fake_repro_not_confirmed.json",
});

/** The Observer lied (claimed seam_created); devflow's record must say so and stop before coding. */
export const evaluate: Evaluator = async (scenario, run) => {
  const a = await loadRunArtifacts(run.taskDir);
  const o = a.observation;
  const observed = gradeObservation(a, scenario.expected, { worktree: run.worktree }).filter((c) =>
    ["observation_present", "observation_status", "observation_verdict"].includes(c.criterion),
  );
  const downgraded: Check = check(
    "fake_repro_downgraded",
    o?.observer_claimed_status === "seam_created" && o.seam_check?.ran === true && o.seam_check.red === false,
    `the Observer claimed ${o?.observer_claimed_status ?? "nothing"}; devflow recorded its seam ${o?.seam_check ? `red: ${o.seam_check.red}` : "unchecked"}`,
  );
  return grade([
    ...gradeRunBasics(a, run),
    ...gradeNodesRan(run, [{ node: "observe", goto: null }]),
    ...observed,
    downgraded,
  ]);
};
