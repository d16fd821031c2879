import { grade } from "../evals/grade.js";
import { gradeGreenConditionAlignment } from "../evals/graders/envelopes.js";
import { gradeObservedLane } from "../evals/graders/profiles.js";
import { loadRunArtifacts } from "../evals/graders/run-artifacts.js";
import { gradeScope } from "../evals/graders/scope.js";
import type { Evaluator } from "../evals/types.js";
import { defineScenario } from "./scenario.js";

export const scenario = defineScenario({
  name: "error_confirmed_by_logs",
  description:
    "A reported 500 with a server log is confirmed by the Observer (log evidence plus a repro command), ready_for_coder, with a green condition that the later seam verifier summaries cite.",
  kind: "lane",
  group: "observation",
  input: {
    request: [
      "Accepting an invite fails with a 500. From the server log:",
      "POST /api/invites/accept 500",
      "TypeError: accepted_at must be set before an accepted invite is saved",
      "    at InviteStore.save (src/invite-store.js:14:13)",
      "    at acceptInvite (src/invites.js:22:24)",
    ].join("\n"),
    priorTurns: [],
    fixture: "invite-acceptance",
    coder: "invite-fix-coder.mjs",
  },
  expected: {
    taskType: "error_fix",
    observationStatus: ["confirmed"],
    observationVerdict: "ready_for_coder",
    terminal: "completed",
    attempts: 1,
    changeWithin: ["src/invites.js"],
    checks: [
      "Observer records log evidence",
      "minimal repro exists or repeatability is confirmed",
      "verdict is ready_for_coder",
      "observation artifact names a green condition that later verifier summaries can cite",
    ],
  },
  cassette: "error_confirmed_by_logs.json",
  referee: { hidden: "invite-accept" },
});

/** Log evidence, a confirmed repro, ready_for_coder, and seam verdicts that cite the green condition. */
export const evaluate: Evaluator = async (scenario, run) => {
  const a = await loadRunArtifacts(run.taskDir);
  const e = scenario.expected;
  return grade([
    ...(await gradeObservedLane(a, run, e, { requireLogEvidence: true })),
    ...gradeGreenConditionAlignment(a),
    ...gradeScope(a, e),
  ]);
};
