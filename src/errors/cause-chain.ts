import { isDevflowError } from "./devflow-error.js";

/** How deep a cause chain is followed; guards against cycles (an error that is its own cause). */
const MAX_DEPTH = 10;

/** The errors an error was caused by, itself first. Libraries (langchain) wrap ours in their own. */
export function* causeChain(error: unknown): Generator<unknown> {
  for (let e: unknown = error, depth = 0; e !== undefined && depth < MAX_DEPTH; depth++) {
    yield e;
    e = e instanceof Error ? e.cause : undefined;
  }
}

/** The first error in the cause chain (itself included) that matches. */
export function findCause<T>(error: unknown, match: (e: unknown) => e is T): T | undefined {
  for (const e of causeChain(error)) if (match(e)) return e;
  return undefined;
}

/**
 * The DevflowError a library wrapped (langchain wraps errors thrown in middleware and tools),
 * so callers can branch on its code; the error unchanged when there is none in the chain.
 */
export function unwrapDevflowError(error: unknown): unknown {
  return findCause(error, (e) => isDevflowError(e)) ?? error;
}
