/**
 * Minimal secret scrubbing for cassettes and error messages. Local to the model layer because
 * no shared src/util/redact.ts existed when it was written; switch to that one when it lands.
 */

const REDACTED = "[REDACTED]";

// Token shapes that are secrets wherever they appear (OpenAI, GitHub, Slack, AWS, bearer headers).
const SECRET_PATTERNS: RegExp[] = [
  /\bsk-[A-Za-z0-9_-]{16,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{16,}/gi,
];

// Short values ("test", "1") would blank out ordinary words.
const MIN_KNOWN_SECRET_LENGTH = 8;

/** Replaces known secret values (e.g. the API key in use) and secret-shaped tokens with [REDACTED]. */
export function redactSecrets(text: string, knownSecrets: readonly string[] = []): string {
  let out = text;
  for (const secret of knownSecrets) {
    if (secret.length >= MIN_KNOWN_SECRET_LENGTH) out = out.split(secret).join(REDACTED);
  }
  for (const pattern of SECRET_PATTERNS) {
    out = out.replace(pattern, (_match, prefix: unknown) =>
      typeof prefix === "string" ? `${prefix}${REDACTED}` : REDACTED,
    );
  }
  return out;
}

/** redactSecrets applied to every string inside a JSON-like value. */
export function redactDeep<T>(value: T, knownSecrets: readonly string[] = []): T {
  return JSON.parse(
    JSON.stringify(value, (_key, v: unknown) => (typeof v === "string" ? redactSecrets(v, knownSecrets) : v)),
  );
}
