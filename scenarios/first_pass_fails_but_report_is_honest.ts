import { grade } from "../evals/grade.js";
import {
  gradeBlockerDetail,
  gradeCoderHonesty,
  gradeCoderReports,
  gradeRepairContext,
} from "../evals/graders/coder-report.js";
import { gradeLaneRecord } from "../evals/graders/lane-record.js";
import { loadRunArtifacts } from "../evals/graders/run-artifacts.js";
import { gradeScope } from "../evals/graders/scope.js";
import { gradeRespawns } from "../evals/graders/supervision.js";
import type { Evaluator } from "../evals/types.js";
import { defineScenario } from "./scenario.js";

export const scenario = defineScenario({
  name: "first_pass_fails_but_report_is_honest",
  description:
    "The coder's first attempt falls short and says so (what changed, what is unverified, what remains); the Iterator turns that into a repair-specific retry and attempt-002 passes.",
  kind: "lane",
  group: "coder_attempt",
  input: {
    request: "Accepting a valid invite answers 500 instead of 200 (POST /api/invites/accept). Please fix it.",
    priorTurns: [],
    fixture: "invite-acceptance",
    coder: "honest-invite-coder.mjs",
  },
  expected: {
    terminal: "completed",
    attempts: 2,
    runStates: ["coding", "verifying", "needs_respawn", "coding", "verifying", "completed"],
    changeWithin: ["src/invites.js"],
    checks: [
      "Coder reports what failed and what remains blocked",
      "Iterator has enough signal to craft a repair-specific retry",
      "attempt summary stays concise while pointing to the fuller verifier output",
      "fuller verifier output keeps the shared envelope, tool detail under native_payload",
    ],
  },
  cassette: "first_pass_fails_but_report_is_honest.json",
  referee: { hidden: "invite-accept" },
});

/** The failed attempt reports honestly and actionably; the retry is repair-specific and succeeds. */
export const evaluate: Evaluator = async (scenario, run) => {
  const a = await loadRunArtifacts(run.taskDir);
  const e = scenario.expected;
  return grade([
    ...(await gradeLaneRecord(a, run, e)),
    ...gradeCoderReports(a),
    ...gradeCoderHonesty(a),
    ...gradeBlockerDetail(a),
    ...gradeRespawns(a),
    ...gradeRepairContext(a),
    ...gradeScope(a, e),
  ]);
};
