import { grade } from "../evals/grade.js";
import { gradeAlignment } from "../evals/graders/coder-report.js";
import { gradeGreenConditionAlignment } from "../evals/graders/envelopes.js";
import { gradeCoderRun } from "../evals/graders/profiles.js";
import { loadRunArtifacts } from "../evals/graders/run-artifacts.js";
import type { Evaluator } from "../evals/types.js";
import { defineScenario } from "./scenario.js";

const REPRO = `import assert from "node:assert/strict";
import { test } from "node:test";
import { importContacts } from "../src/csv-import.js";

test("imports emails with surrounding spaces, trimmed", () => {
  const { imported, rejected } = importContacts("name,email\\nAlice, alice@example.com \\n");
  assert.deepEqual(rejected, []);
  assert.deepEqual(imported, [{ name: "Alice", email: "alice@example.com" }]);
});
`;

export const scenario = defineScenario({
  name: "coder_artifact_alignment",
  description:
    "The Coder's change stays aligned to the supplied observation artifact: it fixes the seam the Observer bounded (email validation before trimming) and not some other problem.",
  kind: "coder",
  group: "subagent",
  input: {
    request: "Trim whitespace around email values during CSV import.",
    priorTurns: [],
    role: "coder",
    fixture: "csv-import",
    coder: "trim-email-coder.mjs",
    task: {
      title: "Trim email values during CSV import",
      task_type: "targeted_improvement",
      task_details: {
        error_fix: null,
        quick_change: null,
        targeted_improvement: {
          improvement_goal: "Emails with surrounding whitespace import successfully",
          measurable_signal: "importContacts imports ' alice@example.com ' as alice@example.com",
        },
      },
      current_behavior:
        "The CSV import preview rejects rows because email validation runs before whitespace is trimmed.",
      desired_behavior: "Email values are trimmed before validation.",
      surface_hints: {
        files: ["src/csv-import.js"],
        routes: [],
        components: ["CSV import wizard"],
        functions: ["validateRow"],
      },
      facts: ["Emails with surrounding spaces are rejected"],
      assumptions: ["Only the email column needs trimming"],
      blocking_unknowns: [],
      success_criteria: [
        "emails with surrounding spaces import successfully",
        "malformed emails are still rejected",
      ],
      scope_boundary: {
        statement: "Trim whitespace around email values during import only.",
        allowed_paths: ["src/csv-import.js", "test/**"],
        out_of_scope: ["the CSV parser", "the email pattern"],
      },
      recommended_next_step: "observe",
    },
    observation: {
      findings: {
        status: "seam_created",
        summary: "CSV preview rejects rows because email validation runs before whitespace trim.",
        evidence: [
          {
            claim: "validateRow tests the untrimmed email",
            refs: [{ kind: "file", ref: "src/csv-import.js:16" }],
          },
        ],
        repro_steps: [
          "Import a CSV with the email value ' alice@example.com '",
          "Observe the invalid email validation error",
        ],
        failing_seam: {
          description: "A row whose email has surrounding spaces is imported with the trimmed email",
          command: "node --test test/email-trim.test.js",
          files: ["test/email-trim.test.js"],
        },
        expected_green_condition:
          "Import preview trims email values before validation: the repro test exits 0.",
        verdict: "ready_for_coder",
        questions: [],
      },
      seamFiles: { "test/email-trim.test.js": REPRO },
    },
  },
  expected: {
    changeWithin: ["src/csv-import.js"],
    checks: [
      "produces a coder report",
      "aligns to the observation artifact (the changed code is the code the evidence cites)",
      "stays in scope",
      "runs narrow verification",
      "reports the attempt honestly",
    ],
  },
  cassette: "coder_artifact_alignment.json",
  referee: { hidden: "csv-trim-email" },
});

/** One coder run: the change lands on the code the observation bounded, judged against its green condition. */
export const evaluate: Evaluator = async (scenario, run) => {
  const a = await loadRunArtifacts(run.taskDir);
  return grade([
    ...gradeCoderRun(a, run, scenario.expected),
    ...gradeAlignment(a),
    ...gradeGreenConditionAlignment(a),
  ]);
};
