/** Bound of doctor's model endpoint request. A leaf module: `devflow doctor --help` reads it
 * without loading the checks (ADR 0042). */
export const DEFAULT_ENDPOINT_TIMEOUT_MS = 10_000;
