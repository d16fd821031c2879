import { check, grade } from "../evals/grade.js";
import { gradeRepairContext } from "../evals/graders/coder-report.js";
import { gradeCriteriaMet } from "../evals/graders/completion.js";
import { gradeLaneRecord } from "../evals/graders/lane-record.js";
import { loadRunArtifacts } from "../evals/graders/run-artifacts.js";
import { gradeScope } from "../evals/graders/scope.js";
import { gradeReadiness, gradeRespawns } from "../evals/graders/supervision.js";
import type { Evaluator } from "../evals/types.js";
import { defineScenario } from "./scenario.js";
import { repairedOnSecondAttempt, trimEmailsLaneInput } from "./setups.js";

/**
 * The critic is the only verifier that can see a fix special-casing the seam's input (seam and
 * regression are green). Without this scenario a critic mutated to always say "met" went unnoticed
 * (issue 9, class 10): no other critic answer in the suite is "unmet".
 */
export const scenario = defineScenario({
  name: "critic_rejects_special_cased_fix",
  description:
    "The coder's first attempt special-cases the repro's one email: the seam and the suite go green, but the critic judges the criterion unmet, the Iterator respawns with that lesson, and attempt-002 trims every email.",
  kind: "lane",
  group: "iterator_loop",
  input: trimEmailsLaneInput("special-case-coder.mjs"),
  expected: repairedOnSecondAttempt([
    "a green seam is not enough: the critic rejects a fix that special-cases the repro",
    "the critic's reason reaches the respawned coder as a lesson",
    "attempt-002 fixes the behaviour, not the test input",
  ]),
  cassette: "critic_rejects_special_cased_fix.json",
  referee: { hidden: "csv-trim-email" },
});

/** attempt-001 passes seam and regression but fails the critic; attempt-002 completes. */
export const evaluate: Evaluator = async (scenario, run) => {
  const a = await loadRunArtifacts(run.taskDir);
  const e = scenario.expected;
  const first = a.attempts[0]?.envelopes;
  return grade([
    ...(await gradeLaneRecord(a, run, e)),
    ...(await gradeReadiness(a)),
    ...gradeRespawns(a),
    ...gradeRepairContext(a),
    ...gradeCriteriaMet(a),
    ...gradeScope(a, e),
    check(
      "critic_rejects_special_case",
      first?.seam?.overall_result === "pass" && first.critic?.overall_result === "fail",
      `attempt-001: seam ${first?.seam?.overall_result ?? "none"}, critic ${first?.critic?.overall_result ?? "none"}; expected seam pass, critic fail`,
    ),
  ]);
};
