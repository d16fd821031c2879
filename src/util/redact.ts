import { replaceAssignments, replaceUrlPasswords } from "./redact-scans.js";
import {
  knownSecrets,
  redactedLabel,
  SECRET_MIN_LENGTH,
  type SecretEntry,
  secretEntriesFromEnv,
} from "./secrets.js";

export const REDACTED = "[REDACTED]";

/** Literal secrets shorter than this are ignored: redacting "abc" everywhere would wreck the text. */
export const MIN_SECRET_LENGTH = 6;

// A name that says "I hold a secret". The letter look-ahead keeps counters and words such as
// `input_tokens`, `tokenizer` or `secretary` out, so usage figures are not redacted.
const SECRET_NAME = /(?:API[_-]?KEY|TOKEN|SECRET|PASSWORD|PASSWD)(?![A-Za-z])/i;
const SECRET_ENV_NAME =
  /(?:API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|PRIVATE_?KEY|CREDENTIALS?)(?![A-Za-z])|_KEY$/i;

type Replacer = (match: string, ...groups: string[]) => string;
/** A pattern run as a scan over the whole text (redact-scans.ts): the hot ones. */
type Scan = (text: string) => string;

const quoteOf = (value: string): string =>
  value.startsWith('"') || value.startsWith("'") ? (value[0] ?? "") : "";

// Rules for every pattern: none may match across a newline (the stream redactor works line by
// line), and none may backtrack quadratically on a long run of token characters (a base64 blob,
// "a.a.a.a..."). Hence matches start only where a run starts (look-behind), lengths are
// bounded, and "is this name secret?" is decided in the replacer instead of inside the regex.
type Pattern = readonly [RegExp, string | Replacer] | Scan;

// A value the registry already replaced keeps its name ([redacted:MY_TOKEN]): more useful than [REDACTED].
const ALREADY_REDACTED = /^["']?\[redacted:[^\]]+\]["']?$/;

const NAME_PATTERNS: readonly Pattern[] = [
  // NAME=value (env files, shell, TOML, CLI flags): keep the name, hide the value, keep its quotes.
  // A scan from `=` to `=`, the exact equivalent of
  // /(?<![A-Za-z0-9_.-])([A-Za-z0-9_.-]{1,128})([ \t]*=[ \t]*)("[^"\n]+"|'[^'\n]+'|[^\s"'&;,]+)/g.
  (text) =>
    replaceAssignments(text, (name, eq, value) =>
      SECRET_NAME.test(name) && !ALREADY_REDACTED.test(value)
        ? `${name}${eq}${quoteOf(value)}${REDACTED}${quoteOf(value)}`
        : null,
    ),
  // "name": "value" (JSON, YAML flow style).
  [
    /("([^"\n]{1,128})"[ \t]*:[ \t]*)("(?:[^"\\\n]|\\.)+")/g,
    (match, prefix = "", name = "", value = "") =>
      SECRET_NAME.test(name) && !ALREADY_REDACTED.test(value) ? `${prefix}"${REDACTED}"` : match,
  ],
];

/**
 * Shapes that are secrets whatever surrounds them. Unlike NAME_PATTERNS they never touch ordinary
 * text (a `TOKEN=abc` in a seam command stays as it is), so `redact` applies them to artifacts,
 * checkpoints and model requests, whose content later runs or is read back.
 */
const TOKEN_PATTERNS: readonly Pattern[] = [
  // Credentials inside URLs: scheme://user:password@host. A scan from `://` to `://`, the exact
  // equivalent of /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]{0,31}:\/\/[^\s:/@]{1,256}:)[^\s@/]{1,256}@/gi.
  (text) => replaceUrlPasswords(text, REDACTED),
  [/\b(Bearer|Basic)[ \t]+[A-Za-z0-9._~+/=-]{6,}/gi, `$1 ${REDACTED}`],
  // OpenAI/Anthropic style keys (sk-..., sk-proj-..., sk-ant-...). Real keys contain a digit;
  // requiring one keeps words like "sk-learn-compatible-pipeline" intact.
  [/\bsk-[A-Za-z0-9_-]{20,}/g, (match) => (/\d/.test(match.slice(3)) ? REDACTED : match)],
  [/\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g, REDACTED],
  [/\bxox[abposr]-[A-Za-z0-9-]{10,}/g, REDACTED],
  [/\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, REDACTED],
  // JWT: base64url header and payload (the header always starts with `{"`, i.e. eyJ).
  [/(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g, REDACTED],
  // PEM private keys are multi-line; their header line alone says a key follows.
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----/g, REDACTED],
];

const PATTERNS: readonly Pattern[] = [...NAME_PATTERNS, ...TOKEN_PATTERNS];

interface Literal {
  value: string;
  label: string;
}

/**
 * Usable literals, longest first so that a secret containing another is replaced whole.
 * Multi-line secrets (PEM keys) are split into lines because redaction runs line by line.
 */
function normalizeSecrets(
  extra: readonly string[],
  known: readonly SecretEntry[] = knownSecrets(),
): Literal[] {
  const pieces = new Map<string, string>();
  const add = (secret: string, label: string, min: number) => {
    for (const line of secret.split(/\r?\n/)) {
      const piece = line.trim();
      if (piece.length >= min && !pieces.has(piece)) pieces.set(piece, label);
    }
  };
  // The registry first: its values are named in the replacement ([redacted:NAME]).
  for (const { name, value } of known) add(value, redactedLabel(name), SECRET_MIN_LENGTH);
  for (const secret of extra) add(secret, REDACTED, MIN_SECRET_LENGTH);
  return [...pieces]
    .map(([value, label]) => ({ value, label }))
    .sort((a, b) => b.value.length - a.value.length);
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * One pass over `text`, so that a label already written is never scanned again: a secret whose
 * value is another secret's name (say `STUB_SECRET_ENV=ANTHROPIC_API_KEY`) must not turn
 * `[redacted:ANTHROPIC_API_KEY]` into `[redacted:[redacted:STUB_SECRET_ENV]]`. Longest first (the
 * order of `literals`) so that a secret containing another is replaced whole.
 */
function replaceLiterals(text: string, literals: readonly Literal[]): string {
  const present = literals.filter(({ value }) => text.includes(value));
  if (present.length === 0) return text;
  const labels = new Map(present.map(({ value, label }) => [value, label]));
  const pattern = new RegExp(present.map(({ value }) => escapeRegExp(value)).join("|"), "g");
  return text.replace(pattern, (match) => labels.get(match) ?? match);
}

function applyPatterns(text: string, patterns: readonly Pattern[]): string {
  let out = text;
  for (const entry of patterns) {
    if (typeof entry === "function") {
      out = entry(out);
      continue;
    }
    const [pattern, replacement] = entry;
    pattern.lastIndex = 0;
    out =
      typeof replacement === "string" ? out.replace(pattern, replacement) : out.replace(pattern, replacement);
  }
  return out;
}

function redactNormalized(text: string, literals: readonly Literal[]): string {
  return applyPatterns(replaceLiterals(text, literals), PATTERNS);
}

/**
 * Every known secret (the registry: devflow's own environment, configured keys) as
 * `[redacted:NAME]`, plus token shapes (sk-…, AKIA…, ghp_…, JWTs, URL passwords) as [REDACTED].
 * The boundary redaction for bytes devflow writes or sends whose text must otherwise stay as it is.
 */
export function redact(text: string): string {
  if (text === "") return text;
  return applyPatterns(replaceLiterals(text, normalizeSecrets([])), TOKEN_PATTERNS);
}

/**
 * `redact` on every string (and object key) of a JSON-like value; returns a copy only where
 * something changed, so a value without secrets is returned as is (same identity).
 */
export function redactDeep<T>(value: T): T {
  const known = knownSecrets();
  if (deepMemo?.known !== known)
    deepMemo = { known, literals: normalizeSecrets([], known), answers: new Map(), chars: 0 };
  const memo = deepMemo;
  const one = (text: string): string => {
    if (text.length > DEEP_MEMO_MAX_STRING) return redactWith(text, memo.literals);
    const seen = memo.answers.get(text);
    if (seen !== undefined) return seen;
    const answer = redactWith(text, memo.literals);
    if (memo.chars + text.length > DEEP_MEMO_MAX_CHARS) {
      memo.answers.clear();
      memo.chars = 0;
    }
    memo.answers.set(text, answer);
    memo.chars += text.length;
    return answer;
  };
  return walk(value, one) as T;
}

const redactWith = (text: string, literals: readonly Literal[]): string =>
  applyPatterns(replaceLiterals(text, literals), TOKEN_PATTERNS);

/**
 * redactDeep's answer for each string it has redacted, valid only for the secrets it was redacted
 * with (issue 11: every checkpoint redacted the whole lane state again, the same contract, baseline
 * and verifier results each time, nine scans of every string). `knownSecrets()` returns the same
 * frozen list for as long as the environment and the registry are unchanged and a new one as soon
 * as either changes, so a secret added later empties this and no answer given without it is served
 * again. Bounded: strings over 64 KiB are not kept, and the whole map is dropped past 8 MiB.
 */
let deepMemo: {
  known: readonly SecretEntry[];
  literals: Literal[];
  answers: Map<string, string>;
  chars: number;
} | null = null;
const DEEP_MEMO_MAX_STRING = 64 * 1024;
const DEEP_MEMO_MAX_CHARS = 8 * 1024 * 1024;

function walk(value: unknown, one: (text: string) => string): unknown {
  if (typeof value === "string") return one(value);
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((item) => {
      const next = walk(item, one);
      if (next !== item) changed = true;
      return next;
    });
    return changed ? out : value;
  }
  if (value !== null && typeof value === "object" && isPlainObject(value)) {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const nextKey = one(key);
      const next = walk(item, one);
      if (next !== item || nextKey !== key) changed = true;
      out[nextKey] = next;
    }
    return changed ? out : value;
  }
  return value;
}

// Class instances (messages, Dates, Buffers) are left alone: copying them as plain objects would
// lose their type. JSON values, the store's and the checkpoint's currency, are plain.
function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Replaces API keys, tokens, passwords, `known` literals ([REDACTED]) and every secret of the
 * registry (src/util/secrets.ts: `[redacted:NAME]`) in `text`. Also rewrites `NAME=value` and
 * `"name": "value"` pairs whose name looks secret: for text people read (errors, transcripts).
 */
export function redactSecrets(text: string, knownSecrets: readonly string[] = []): string {
  return redactNormalized(text, normalizeSecrets(knownSecrets));
}

/** `redactSecrets` with the secret list prepared once, for redacting many small texts. */
export function createRedactor(knownSecrets: readonly string[] = []): (text: string) => string {
  const literals = normalizeSecrets(knownSecrets);
  return (text) => redactNormalized(text, literals);
}

/** Values of the variables whose names look secret (…_API_KEY, …TOKEN, …SECRET…, …PASSWORD, …_KEY). */
export function secretsFromEnv(env: Readonly<Record<string, string | undefined>>): string[] {
  const secrets: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && value.length >= MIN_SECRET_LENGTH && SECRET_ENV_NAME.test(name)) {
      secrets.push(value);
    }
  }
  // URL passwords too (DATABASE_URL=postgres://app:pw@db/app): the name does not say "secret".
  for (const entry of secretEntriesFromEnv(env))
    if (entry.name.endsWith(":password")) secrets.push(entry.value);
  return secrets;
}

export interface StreamRedactor {
  /** Takes the next chunk; returns the redacted text that is now safe to emit (complete lines). */
  push(chunk: string): string;
  /** Returns the redacted remainder (the last line without a newline). Call once at the end. */
  flush(): string;
}

/** How much of an unterminated line is held back; longer lines are emitted in pieces. */
const DEFAULT_MAX_PENDING_CHARS = 256 * 1024;
/** When a long line is cut, this much of its end stays pending so a secret near the cut is kept whole. */
const CUT_OVERLAP_CHARS = 4096;

/**
 * Redacts a stream chunk by chunk. Text is held back until its line is complete, so a secret
 * split across two chunks is still caught. A line longer than `maxPendingChars` is cut at its
 * last whitespace (or, lacking one, hard) so memory stays bounded; only a secret straddling
 * such a cut inside a huge line can escape whole-match redaction.
 */
export function createStreamRedactor(
  knownSecrets: readonly string[] = [],
  maxPendingChars = DEFAULT_MAX_PENDING_CHARS,
): StreamRedactor {
  const literals = normalizeSecrets(knownSecrets);
  const overlap = Math.min(CUT_OVERLAP_CHARS, Math.floor(maxPendingChars / 2));
  let pending = "";
  return {
    push(chunk: string): string {
      pending += chunk;
      let ready = "";
      const lastNewline = pending.lastIndexOf("\n");
      if (lastNewline >= 0) {
        ready = pending.slice(0, lastNewline + 1);
        pending = pending.slice(lastNewline + 1);
      }
      if (pending.length > maxPendingChars) {
        const limit = pending.length - overlap;
        const space = Math.max(pending.lastIndexOf(" ", limit), pending.lastIndexOf("\t", limit));
        const cut = space > 0 ? space + 1 : limit;
        ready += pending.slice(0, cut);
        pending = pending.slice(cut);
      }
      return ready === "" ? "" : redactNormalized(ready, literals);
    },
    flush(): string {
      const rest = pending;
      pending = "";
      return rest === "" ? "" : redactNormalized(rest, literals);
    },
  };
}
