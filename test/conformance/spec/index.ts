import { cliCoderSpec } from "./cli-backend-spec.js";
import { inProcessCoderSpec } from "./in-process-backend-spec.js";
import type { CoderInitializer } from "./types.js";

export { CONFORMANCE_PROMPT } from "./shared.js";
export type * from "./types.js";

/**
 * The coder conformance spec (after LangGraph's checkpoint-validation): one behavioural contract,
 * registered for the backend an initializer describes. A backend's test file is its initializer
 * and this call, plus any backend-specific cases beside them.
 */
export function coderConformanceSpec(initializer: CoderInitializer): void {
  if (initializer.kind === "cli") cliCoderSpec(initializer);
  else inProcessCoderSpec(initializer);
}
