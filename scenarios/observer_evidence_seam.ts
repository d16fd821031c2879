import { grade } from "../evals/grade.js";
import { gradeObserverRun } from "../evals/graders/profiles.js";
import { loadRunArtifacts } from "../evals/graders/run-artifacts.js";
import type { Evaluator } from "../evals/types.js";
import { defineScenario } from "./scenario.js";

const LOG = [
  "POST /api/invites/accept 500",
  "TypeError: accepted_at must be set before an accepted invite is saved",
  "    at InviteStore.save (src/invite-store.js:14:13)",
  "    at acceptInvite (src/invites.js:22:24)",
].join("\n");

export const scenario = defineScenario({
  name: "observer_evidence_seam",
  description:
    "Given a framed error with the user's log, the Observer finds the failing seam from evidence: it reads the code the trace names, reproduces the 500 with the project's own support script, and cites the log, the lines and the command.",
  kind: "observer",
  group: "subagent",
  input: {
    request: `Accepting an invite fails with a 500. From the server log:\n${LOG}`,
    priorTurns: [],
    role: "observer",
    fixture: "invite-acceptance",
    task: {
      title: "Fix the 500 on invite acceptance",
      task_type: "error_fix",
      task_details: {
        error_fix: {
          reported_error: "POST /api/invites/accept answers 500 with an accepted_at TypeError",
          error_location_hints: ["src/invite-store.js:14", "src/invites.js:22"],
          logs_or_trace: LOG,
        },
        quick_change: null,
        targeted_improvement: null,
      },
      current_behavior: "Accepting a valid invite answers 500 with the accepted_at TypeError.",
      desired_behavior: "Accepting a valid invite answers 200 with accepted_at set.",
      surface_hints: {
        files: ["src/invites.js", "src/invite-store.js"],
        routes: ["POST /api/invites/accept"],
        components: [],
        functions: ["acceptInvite", "InviteStore.save"],
      },
      facts: ["The server log shows POST /api/invites/accept 500 with the accepted_at TypeError"],
      assumptions: ["The store's rule is intended"],
      blocking_unknowns: [],
      success_criteria: ["POST /api/invites/accept returns 200 for a valid invite token"],
      scope_boundary: {
        statement: "Invite acceptance only.",
        allowed_paths: ["src/invites.js", "test/**"],
        out_of_scope: ["invite expiry"],
      },
      recommended_next_step: "observe",
    },
  },
  expected: {
    observationStatus: ["confirmed"],
    observationVerdict: "ready_for_coder",
    checks: [
      "confirm a reported error when evidence exists",
      "Observer records log evidence",
      "provide repro steps another agent can run",
      "the seam is red on base, checked by devflow itself",
    ],
  },
  cassette: "observer_evidence_seam.json",
});

/** Observer node alone: the error is confirmed from the user's log and a command devflow saw fail on base. */
export const evaluate: Evaluator = async (scenario, run) =>
  grade(
    gradeObserverRun(await loadRunArtifacts(run.taskDir), run, scenario.expected, {
      requireLogEvidence: true,
    }),
  );
