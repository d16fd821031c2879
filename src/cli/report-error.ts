import { CoderUnavailableError } from "../coders/contract.js";
import { UsageError } from "../lanes/iterate/errors.js";
import { ModelCallError, ModelConfigError, StructuredOutputError } from "../models/contract.js";
import { redactSecrets } from "../util/redact.js";
import { WorkspaceError } from "../workspace/index.js";
import { EXIT } from "./exit-codes.js";

/** One clear line on stderr (plus a hint when there is one) and the documented exit code. */
export function reportError(
  error: unknown,
  write: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): number {
  const message = redactSecrets(error instanceof Error ? error.message : String(error));
  if (error instanceof CoderUnavailableError) {
    write(`devflow: ${message}`);
    if (error.hint) write(`  → ${error.hint}`);
    return EXIT.usage;
  }
  if (error instanceof UsageError || error instanceof ModelConfigError || error instanceof WorkspaceError) {
    write(`devflow: ${message}`);
    return EXIT.usage;
  }
  if (error instanceof ModelCallError && (error.kind === "auth" || error.kind === "not_found")) {
    // A wrong key, model or endpoint is configuration the user fixes, not a crash.
    write(`devflow: ${message}`);
    write("  → fix the model configuration, then continue with --resume");
    return EXIT.usage;
  }
  if (error instanceof StructuredOutputError) {
    write(`devflow: the ${error.role} model gave no valid answer: ${message}`);
    write("  → the run is checkpointed; fix the model/cassette and continue with --resume");
    return EXIT.failure;
  }
  write(`devflow: ${message}`);
  if (process.env.DEVFLOW_DEBUG && error instanceof Error && error.stack) write(redactSecrets(error.stack));
  return EXIT.failure;
}
