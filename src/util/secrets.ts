/**
 * The one owner of "which values are secret" in this process (ADR 0030). Every boundary where
 * devflow writes or sends bytes (the artifact store, events.jsonl, transcripts, the checkpoint,
 * error messages, stdout/stderr, model requests) asks this registry, so a secret a coder reads
 * from devflow's own environment (`/proc/<pid>/environ` is readable by the same user) or a model
 * repeats is caught wherever it turns up, not only where its source was known.
 *
 * The registry holds: the values of devflow's own environment variables whose names look secret
 * (re-read on every use: cheap, and a test or embedder that changes `process.env` stays covered),
 * the password part of any `scheme://user:password@host` URL in the environment, and what callers
 * register explicitly (the configured model API key, coder credentials).
 */

/**
 * Values shorter than this are not registered: replacing "hunter2" or "1234" everywhere would
 * wreck ordinary text while protecting nothing a guess would not find.
 */
export const SECRET_MIN_LENGTH = 8;

// Names that say "I hold a secret". The letter look-ahead keeps GIT_AUTHOR_NAME, MAX_TOKENS-like
// counters with long names (`TOKENIZER_…`) and `SECRETARY` out.
const SECRET_ENV_NAME =
  /(?:API_?KEY|ACCESS_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|PRIVATE(?:_?KEY)?|CREDENTIALS?|AUTH|COOKIE)(?![A-Za-z])|_KEY$|^KEY$/i;
// Locations, not secrets: SSH_AUTH_SOCK, GOOGLE_APPLICATION_CREDENTIALS_FILE, …_DIR. Redacting a
// path everywhere would hide where things are without hiding anything secret.
const LOCATION_NAME = /_(?:SOCK|PATH|FILE|DIR|HOME)$/i;
const URL_PASSWORD = /[a-z][a-z0-9+.-]{0,31}:\/\/[^\s:/@]{1,256}:([^\s@/]{1,256})@/gi;

export interface SecretEntry {
  /** What the redaction says instead of the value: `[redacted:NAME]`. */
  name: string;
  value: string;
}

const registered = new Map<string, string>();
/** Bumped whenever `registered` changes, so knownSecrets' memo can tell. */
let registryVersion = 0;

/** Registers a value under a name (`[redacted:NAME]`); too-short or empty values are ignored. */
export function registerSecret(name: string, value: string | undefined): void {
  const trimmed = value?.trim();
  if (trimmed === undefined || trimmed.length < SECRET_MIN_LENGTH) return;
  if (!registered.has(trimmed)) {
    registered.set(trimmed, safeName(name));
    registryVersion++;
  }
}

/** Forgets explicitly registered values (tests). Environment-derived secrets stay: they are re-read. */
export function clearRegisteredSecrets(): void {
  registered.clear();
  registryVersion++;
}

/** Whether an environment variable's name says its value is a secret. */
export function isSecretEnvName(name: string): boolean {
  return SECRET_ENV_NAME.test(name) && !LOCATION_NAME.test(name);
}

/** Secrets found in an environment: secret-named values and URL passwords of any variable. */
export function secretEntriesFromEnv(env: Readonly<Record<string, string | undefined>>): SecretEntry[] {
  const found: SecretEntry[] = [];
  for (const [name, raw] of Object.entries(env)) {
    const value = raw?.trim();
    if (value === undefined || value === "") continue;
    if (value.length >= SECRET_MIN_LENGTH && isSecretEnvName(name)) found.push({ name, value });
    for (const match of value.matchAll(URL_PASSWORD)) {
      const password = match[1] ?? "";
      if (password.length >= SECRET_MIN_LENGTH) found.push({ name: `${name}:password`, value: password });
    }
  }
  return found;
}

/**
 * Every known secret, longest first (so a secret containing another is replaced whole): the
 * explicit registrations, then devflow's own environment as it is now.
 */
export function knownSecrets(
  env: Readonly<Record<string, string | undefined>> = process.env,
): readonly SecretEntry[] {
  // The environment is still read on every call (a changed `process.env` is seen at once); only
  // the matching and sorting are skipped when it and the registry are exactly as last time
  // (issue 11: every artifact write, event and checkpoint asks, ~175 times per demo run). Names
  // and values cannot hold a NUL, so the key names one environment only.
  let key = "";
  for (const [name, value] of Object.entries(env)) key += `${name}\0${value ?? ""}\0`;
  if (memo !== null && memo.key === key && memo.version === registryVersion) return memo.secrets;
  const byValue = new Map<string, string>(registered);
  for (const entry of secretEntriesFromEnv(env)) {
    if (!byValue.has(entry.value)) byValue.set(entry.value, safeName(entry.name));
  }
  const secrets = Object.freeze(
    [...byValue]
      .map(([value, name]) => Object.freeze({ name, value }))
      .sort((a, b) => b.value.length - a.value.length),
  );
  memo = { key, version: registryVersion, secrets };
  return secrets;
}

let memo: { key: string; version: number; secrets: readonly SecretEntry[] } | null = null;

/** The replacement text for a secret: names it, never shows it. */
export const redactedLabel = (name: string): string => `[redacted:${name}]`;

// The label is written into JSON, shell-like text and Markdown: keep it to plain characters.
function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9_.:-]/g, "_").slice(0, 64) || "secret";
}
