import { ModelCallError, ReplayExhaustedError, StructuredOutputError } from "../../models/contract.js";

const TRANSIENT_MODEL_ERRORS: ReadonlySet<string> = new Set([
  "rate_limit",
  "server",
  "connection",
  "timeout",
]);

/** The errors an error was caused by, itself first (langchain wraps middleware errors in others). */
function* causeChain(error: unknown): Generator<unknown> {
  for (let e: unknown = error, depth = 0; e !== undefined && depth < 10; depth++) {
    yield e;
    e = e instanceof Error ? e.cause : undefined;
  }
}

/** The first error in the `cause` chain that matches. */
export function findCause<T>(error: unknown, match: (e: unknown) => e is T): T | undefined {
  for (const e of causeChain(error)) if (match(e)) return e;
  return undefined;
}

const isOwnError = (e: unknown): e is StructuredOutputError | ModelCallError | ReplayExhaustedError =>
  e instanceof StructuredOutputError || e instanceof ModelCallError || e instanceof ReplayExhaustedError;

/** devflow's own error in the chain, unwrapped so callers can tell it apart; otherwise the error itself. */
export function ownError(error: unknown): unknown {
  return findCause(error, isOwnError) ?? error;
}

const isModelCallError = (e: unknown): e is ModelCallError => e instanceof ModelCallError;

/** A model failure worth a retry: rate limit, 5xx, connection, timeout. */
export function isTransientModelError(error: unknown): boolean {
  const modelError = findCause(error, isModelCallError);
  return modelError !== undefined && TRANSIENT_MODEL_ERRORS.has(modelError.kind);
}
