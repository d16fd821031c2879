import { DevflowError, type ErrorCode, findCause } from "../errors/index.js";

/**
 * Failures of the model endpoint that a later try may not meet (issue 12: connection errors, 5xx,
 * timeouts), decided by the error's code, never by its text. A rate limit, a refused key or an
 * unknown model are not here: they belong to the provider gate (provider-fault.ts, ADR 0052), and
 * retrying them on a timer would burn the ticket's retries on a fault of the provider.
 */
export const TRANSIENT_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "MODEL_CONNECTION",
  "MODEL_SERVER",
  "MODEL_TIMEOUT",
]);

/**
 * The transient DevflowError anywhere in `error`'s cause chain, or undefined. A MODEL_BAD_RESPONSE
 * counts when its details say the body was a cut-off JSON answer (a truncated body, issue 12): an
 * HTML page or an answer without choices stays what it is, a wrong endpoint or model.
 */
export function transientCause(error: unknown): DevflowError | undefined {
  return findCause(
    error,
    (e): e is DevflowError =>
      e instanceof DevflowError && (TRANSIENT_CODES.has(e.code) || isTruncatedAnswer(e)),
  );
}

/** A MODEL_BAD_RESPONSE whose body was cut off (models/model-errors.ts sets `details.truncated`). */
export function isTruncatedAnswer(error: DevflowError): boolean {
  if (error.code !== "MODEL_BAD_RESPONSE") return false;
  const details: unknown = error.details;
  return typeof details === "object" && details !== null && Reflect.get(details, "truncated") === true;
}

/**
 * The wait before transient retry `retry` (1-based): `base · 2^(retry-1)`, capped at `max`, with
 * full jitter over its upper half so that tickets failed by one outage do not all return at once.
 */
export function transientBackoffMs(
  retry: number,
  baseSeconds: number,
  maxSeconds: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(maxSeconds, baseSeconds * 2 ** Math.max(0, retry - 1)) * 1000;
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
