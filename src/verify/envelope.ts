import type { VerifierEnvelope, VerifierName } from "../artifacts/schemas/verifier-envelope.js";
import { nowIso } from "../util/time.js";

/** Largest command-output excerpt an envelope carries; the full output lives in the log file. */
export const ENVELOPE_EXCERPT_BYTES = 8 * 1024;

type Outcome = Pick<
  VerifierEnvelope,
  "overall_result" | "green_condition_alignment" | "summary" | "evidence_refs" | "native_payload"
>;

/**
 * Starts the clock for one verifier run; `finish` stamps the shared envelope fields so every
 * verifier reports started_at/duration_ms the same way.
 */
export function startEnvelope(verifier: VerifierName, attemptId: string) {
  const startedAt = nowIso();
  const t0 = performance.now();
  return {
    finish(outcome: Outcome): VerifierEnvelope {
      return {
        verifier,
        attempt_id: attemptId,
        started_at: startedAt,
        duration_ms: Math.max(0, Math.round(performance.now() - t0)),
        ...outcome,
      };
    },
  };
}

/** Names a list for a one-line summary without letting a long list swamp it. */
export function nameList(items: readonly string[], max = 10): string {
  if (items.length <= max) return items.join(", ");
  return `${items.slice(0, max).join(", ")} and ${items.length - max} more`;
}
