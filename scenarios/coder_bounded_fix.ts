import { grade } from "../evals/grade.js";
import { gradeCoderRun } from "../evals/graders/profiles.js";
import { loadRunArtifacts } from "../evals/graders/run-artifacts.js";
import type { Evaluator } from "../evals/types.js";
import { defineScenario } from "./scenario.js";

const REPRO = `import assert from "node:assert/strict";
import { test } from "node:test";
import { handleRequest } from "../src/api.js";
import { sampleStore } from "../src/invite-store.js";

test("accepting a valid invite answers 200 with accepted_at set", () => {
  const res = handleRequest({ method: "POST", path: "/api/invites/accept", body: { token: "valid-token" } }, sampleStore());
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(typeof res.body.invite.accepted_at, "string");
});
`;

export const scenario = defineScenario({
  name: "coder_bounded_fix",
  description:
    "The Coder receives framed and observed artifacts for the invite-acceptance 500 and applies the minimal fix (set accepted_at before persisting) instead of broadening the change; devflow's verifiers judge it.",
  kind: "coder",
  group: "subagent",
  input: {
    request: "Accepting a valid invite answers 500 instead of 200. Please fix it.",
    priorTurns: [],
    role: "coder",
    fixture: "invite-acceptance",
    coder: "invite-fix-coder.mjs",
    task: {
      title: "Fix the 500 when accepting a valid invite",
      task_type: "error_fix",
      task_details: {
        error_fix: {
          reported_error: "POST /api/invites/accept answers 500 for a valid invite token",
          error_location_hints: ["src/invites.js acceptInvite"],
          logs_or_trace: null,
        },
        quick_change: null,
        targeted_improvement: null,
      },
      current_behavior:
        "Accepting a valid invite answers 500: the invite is persisted as accepted before accepted_at is set.",
      desired_behavior: "Accepting a valid invite answers 200 and the invite has accepted_at set.",
      surface_hints: {
        files: ["src/invites.js"],
        routes: ["POST /api/invites/accept"],
        components: [],
        functions: ["acceptInvite"],
      },
      facts: ["POST /api/invites/accept answers 500 for a valid invite"],
      assumptions: ["The store's accepted_at rule is correct and stays"],
      blocking_unknowns: [],
      success_criteria: [
        "POST /api/invites/accept returns 200 for a valid invite token",
        "the accepted invite has accepted_at set as an ISO timestamp",
      ],
      scope_boundary: {
        statement: "Fix the accept-invite failure only. No refactor or UX redesign.",
        allowed_paths: ["src/invites.js", "test/**"],
        out_of_scope: ["the invite store", "invite expiry", "invite e-mails"],
      },
      recommended_next_step: "observe",
    },
    observation: {
      findings: {
        status: "seam_created",
        summary:
          "Invite acceptance fails when accepted_at is None during persistence: acceptInvite saves before setting it.",
        evidence: [
          {
            claim: "acceptInvite calls store.save before setting accepted_at",
            refs: [{ kind: "file", ref: "src/invites.js:22" }],
          },
        ],
        repro_steps: ["Run node --test test/accept-invite.test.js", "See status 500 instead of 200"],
        failing_seam: {
          description: "Accepting a valid invite answers 200 with accepted_at set",
          command: "node --test test/accept-invite.test.js",
          files: ["test/accept-invite.test.js"],
        },
        expected_green_condition:
          "Valid invite acceptance sets accepted_at before persistence: the repro test exits 0.",
        verdict: "ready_for_coder",
        questions: [],
      },
      seamFiles: { "test/accept-invite.test.js": REPRO },
    },
  },
  expected: {
    changeWithin: ["src/invites.js"],
    checks: [
      "produces a coder report",
      "implements the targeted fix (the seam turns green)",
      "stays in scope",
      "runs narrow verification",
      "reports the attempt honestly",
    ],
  },
  cassette: "coder_bounded_fix.json",
  referee: { hidden: "invite-accept" },
});

/** One coder run plus its verifiers and the gate: the minimal fix turns the seam green inside the scoped file. */
export const evaluate: Evaluator = async (scenario, run) =>
  grade(gradeCoderRun(await loadRunArtifacts(run.taskDir), run, scenario.expected));
