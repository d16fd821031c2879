import type {
  EnvelopeOf,
  OverallResult,
  SeamPayload,
  VerifierEnvelope,
  VerifierName,
} from "../../src/artifacts/schemas/verifier-envelope.js";

/** A seam payload as runSeamVerifier writes it, for a command that exited `exitCode`. */
export function seamPayload(overrides: Partial<SeamPayload> = {}): SeamPayload {
  return {
    command: "node --test test/seam.test.mjs",
    files: ["test/seam.test.mjs"],
    expected_green_condition: null,
    exit_code: 0,
    signal: null,
    timed_out: false,
    aborted: false,
    spawn_error: null,
    output_excerpt: "",
    output_truncated: false,
    total_output_bytes: 0,
    duration_ms: 5,
    ...overrides,
  };
}

/** The payload each verifier writes for a result, in its on-disk shape (verifier-payloads.ts). */
export function payloadFor<V extends VerifierName>(
  verifier: V,
  result: OverallResult,
): EnvelopeOf<V>["native_payload"] {
  const ran = result === "pass" || result === "fail";
  const payloads: { [N in VerifierName]: EnvelopeOf<N>["native_payload"] } = {
    seam: seamPayload({ exit_code: result === "pass" ? 0 : result === "fail" ? 1 : null }),
    seam_integrity: ran ? { expected: {}, actual: {}, edited: [], deleted: [], created: [] } : { files: [] },
    regression:
      result === "skipped"
        ? { command: null, skip_reason: "no_test_command" }
        : ran
          ? {
              command: "npm test",
              exit_code: result === "pass" ? 0 : 1,
              baseline_exit_code: 0,
              output_excerpt: "",
              output_truncated: false,
              compared: "exit_code",
            }
          : { command: "npm test", baseline_command: "npm test" },
    scope: { allowed_paths: [], changed_files: ["src/csv-import.js"], out_of_scope: [], restricted: false },
    critic: ran
      ? {
          prompt_bytes: 100,
          diff: { shownBytes: 0, totalBytes: 0, files: [], truncatedFiles: [] },
          model: "scripted",
          criteria: [],
          blockers: [],
          plan_invalid: false,
          critic_summary: "",
          unmatched_model_criteria: [],
        }
      : { skip_reason: result === "skipped" ? "deterministic_verifier_failed" : "prompt_not_built" },
    extra_verifiers: {
      timeout_ms: 60_000,
      runs: [
        {
          name: "block 1",
          result: result === "skipped" ? "error" : result,
          exit_code: result === "pass" ? 0 : result === "fail" ? 1 : null,
          timed_out: false,
          failure: ran ? null : "could not start",
          output_excerpt: "",
          output_truncated: false,
          duration_ms: 5,
          log: "verifiers/extra-01.log",
        },
      ],
    },
  };
  return payloads[verifier] as EnvelopeOf<V>["native_payload"];
}

/**
 * An envelope built as a verifier would, without parsing, so a test can also hand the gate a
 * result the schema refuses (defence in depth: e.g. a skipped seam).
 */
export function envelopeFor(
  verifier: VerifierName,
  result: OverallResult,
  fields: Partial<Omit<VerifierEnvelope, "verifier" | "native_payload">> = {},
): VerifierEnvelope {
  return {
    verifier,
    attempt_id: "attempt-001",
    overall_result: result,
    green_condition_alignment: verifier === "seam" ? "aligned" : "not_applicable",
    summary: `${verifier} said ${result}`,
    evidence_refs: [],
    started_at: "2025-01-01T00:00:00.000Z",
    duration_ms: 1,
    native_payload: payloadFor(verifier, result),
    ...fields,
  } as VerifierEnvelope;
}
