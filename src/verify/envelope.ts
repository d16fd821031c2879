import type { EnvelopeOf, VerifierName } from "../artifacts/schemas/verifier-envelope.js";
import { nowIso } from "../util/time.js";

/** Largest command-output excerpt an envelope carries; the full output lives in the log file. */
export const ENVELOPE_EXCERPT_BYTES = 8 * 1024;

/** Omit over each member of a union (the built-in Omit collapses a union to its common keys). */
type OmitEach<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** What a verifier decides; the stamp (verifier, attempt, clock) is added by `finish`. */
type Outcome<V extends VerifierName> = OmitEach<
  EnvelopeOf<V>,
  "verifier" | "attempt_id" | "started_at" | "duration_ms"
>;

/**
 * Starts the clock for one verifier run; `finish` stamps the shared envelope fields so every
 * verifier reports started_at/duration_ms the same way.
 */
export function startEnvelope<V extends VerifierName>(verifier: V, attemptId: string) {
  const startedAt = nowIso();
  const t0 = performance.now();
  return {
    finish(outcome: Outcome<V>): EnvelopeOf<V> {
      const stamp = {
        verifier,
        attempt_id: attemptId,
        started_at: startedAt,
        duration_ms: Math.max(0, Math.round(performance.now() - t0)),
      };
      // TypeScript cannot see that the stamp's verifier V and an Outcome<V> make an EnvelopeOf<V>.
      return { ...stamp, ...outcome } as unknown as EnvelopeOf<V>;
    },
  };
}

/** The critic's envelope when it is not asked because a deterministic verifier did not pass (ADR 0004). */
export function criticNotAsked(attemptId: string): EnvelopeOf<"critic"> {
  return startEnvelope("critic", attemptId).finish({
    overall_result: "skipped",
    green_condition_alignment: "not_applicable",
    summary: "not run: a deterministic verifier did not pass",
    evidence_refs: [],
    native_payload: { skip_reason: "deterministic_verifier_failed" },
  });
}
