import { redactSecrets, secretsFromEnv } from "../util/redact.js";
import { isDevflowError } from "./devflow-error.js";

/**
 * An error as the user reads it: its message, then its hint in parentheses when it has one, with
 * API keys, tokens and the values of secret-named environment variables replaced by [REDACTED].
 */
export function describeError(
  error: unknown,
  knownSecrets: readonly string[] = secretsFromEnv(process.env),
): string {
  const message = redactSecrets(messageOf(error), knownSecrets);
  if (isDevflowError(error) && error.hint) return `${message} (${redactSecrets(error.hint, knownSecrets)})`;
  return message;
}

/** The message of anything thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
