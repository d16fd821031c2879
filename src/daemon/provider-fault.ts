import { causeChain, DevflowError, findCause, isDevflowError } from "../errors/index.js";
import { isTruncatedAnswer } from "./transient.js";
import type { RunEnd } from "./worker-types.js";

/**
 * Why the provider gate closes (issue 12, ADR 0052). The first three are latches (they end only
 * with a successful session, a config reload or a restart: no timer fixes a refused key), the last
 * two are backoffs (they end by themselves).
 */
export const PROVIDER_FAULT_KINDS = [
  "auth_error",
  "quota_exhausted",
  "misconfig",
  "rate_limited",
  "outage_backoff",
] as const;
export type ProviderFaultKind = (typeof PROVIDER_FAULT_KINDS)[number];

export const LATCHES: ReadonlySet<ProviderFaultKind> = new Set([
  "auth_error",
  "quota_exhausted",
  "misconfig",
]);

export interface ProviderFault {
  kind: ProviderFaultKind;
  /** One line for the log, the record and /health. */
  reason: string;
  /** The server's Retry-After (`rate_limited` only), in ms; null when it sent none. */
  retryAfterMs: number | null;
  /** What decided: the HTTP status, a DevflowError code, or (coder failures only) their text. */
  from: "http" | "code" | "text";
}

/** An HTTP answer of the endpoint (the readiness probe's, or one found on an error object). */
export interface HttpAnswer {
  status: number;
  /** The OpenAI error body's `error.code` (e.g. `insufficient_quota`). */
  apiCode?: string | undefined;
  retryAfterMs?: number | null | undefined;
  message: string;
}

/**
 * The one classification of model-endpoint failures for the daemon, from structure first: the
 * DevflowError code (model-errors.ts maps every live call's failure to one), then an HTTP status
 * on any error object in the cause chain (an SDK error that escaped the mapping). A thrown error's
 * text is never read: a plain Error saying "503" is not a provider fault. Null: not the provider's.
 */
export function classifyProviderError(error: unknown): ProviderFault | null {
  const model = findCause(
    error,
    (e): e is DevflowError => e instanceof DevflowError && e.code.startsWith("MODEL_"),
  );
  if (model !== undefined) return fromCode(model, error);
  const coder = findCause(error, (e): e is DevflowError<"CODER_PROVIDER_STOPPED"> =>
    isDevflowError(e, "CODER_PROVIDER_STOPPED"),
  );
  if (coder !== undefined) return fromCoderStop(coder.details.status, coder.details.said, coder.message);
  for (const e of causeChain(error)) {
    const status = field(e, "status");
    if (typeof status === "number" && status >= 400)
      return classifyHttpAnswer({
        status,
        apiCode: apiCodeIn(e),
        retryAfterMs: retryAfterIn(e),
        message: messageOf(e),
      });
  }
  return null;
}

/** An HTTP failure status of the endpoint as a fault; null for a status that is no provider fault. */
export function classifyHttpAnswer(answer: HttpAnswer): ProviderFault | null {
  const { status, message } = answer;
  const http = { from: "http" as const, retryAfterMs: null };
  if (status === 401 || status === 403)
    return { kind: "auth_error", reason: `HTTP ${status}: ${message}`, ...http };
  if (status === 404) return { kind: "misconfig", reason: `HTTP 404: ${message}`, ...http };
  if (status === 402 || (status === 429 && answer.apiCode === "insufficient_quota"))
    return { kind: "quota_exhausted", reason: `HTTP ${status}: ${message}`, ...http };
  if (status === 429)
    return {
      kind: "rate_limited",
      reason: `HTTP 429: ${message}`,
      from: "http",
      retryAfterMs: answer.retryAfterMs ?? null,
    };
  if (status >= 500) return { kind: "outage_backoff", reason: `HTTP ${status}: ${message}`, ...http };
  return null;
}

function fromCode(error: DevflowError, whole: unknown): ProviderFault | null {
  const reason = `${error.code}: ${error.message}`;
  const base = { reason, from: "code" as const, retryAfterMs: null };
  switch (error.code) {
    case "MODEL_AUTH":
      return { kind: "auth_error", ...base };
    case "MODEL_NOT_FOUND":
    case "MODEL_CONFIG":
      return { kind: "misconfig", ...base };
    case "MODEL_RATE_LIMIT": {
      // model-errors.ts keeps the SDK's error as the cause: its body code and headers decide.
      if (findCause(whole, (e): e is unknown => apiCodeIn(e) === "insufficient_quota") !== undefined)
        return { kind: "quota_exhausted", ...base };
      let retryAfterMs: number | null = null;
      for (const e of causeChain(whole)) retryAfterMs ??= retryAfterIn(e);
      return { kind: "rate_limited", ...base, retryAfterMs };
    }
    case "MODEL_SERVER":
    case "MODEL_CONNECTION":
    case "MODEL_TIMEOUT":
      return { kind: "outage_backoff", ...base };
    case "MODEL_BAD_RESPONSE":
      return isTruncatedAnswer(error) ? { kind: "outage_backoff", ...base } : null;
    default:
      return null;
  }
}

/**
 * A coder that stopped on the provider (the lane ends such a run `blocked` with the reason
 * `coder <name> stopped with auth|rate_limit: <the CLI's error>`, nodes/code.ts): the status word
 * is the backend's structured reading; the CLI's own words are read only to tell an exhausted quota
 * from a rate limit, the one thing no coder reports structurally.
 */
export function classifyCoderEnd(end: RunEnd): ProviderFault | null {
  if (end.verdict !== "blocked") return null;
  const match = /^coder \S+ stopped with (auth|rate_limit): ([^\n]*)/.exec(end.reason);
  if (!match) return null;
  return fromCoderStop(match[1] as "auth" | "rate_limit", match[2] ?? "", end.reason);
}

/** A coder's provider stop, thrown (CODER_PROVIDER_STOPPED) or ended blocked: the same reading. */
function fromCoderStop(status: "auth" | "rate_limit", said: string, reason: string): ProviderFault {
  const base = { reason: reason.split("\n")[0] ?? reason, retryAfterMs: null };
  if (status === "auth") return { kind: "auth_error", from: "code", ...base };
  return QUOTA_TEXT.test(said)
    ? { kind: "quota_exhausted", from: "text", ...base }
    : { kind: "rate_limited", from: "code", ...base };
}

const QUOTA_TEXT =
  /insufficient[_ ]quota|quota (?:exceeded|exhausted)|exceeded your (?:current )?quota|billing|credit balance/i;

function apiCodeIn(e: unknown): string | undefined {
  const body = field(e, "error");
  const code = field(body, "code") ?? field(e, "code");
  return typeof code === "string" ? code : undefined;
}

/** Retry-After (ms, seconds or an HTTP date) from an SDK error's headers; null when absent. */
function retryAfterIn(e: unknown): number | null {
  const headers = field(e, "headers");
  if (headers === undefined || headers === null) return null;
  const get = (name: string): string | null => {
    const v = headers instanceof Headers ? headers.get(name) : field(headers, name);
    return typeof v === "string" ? v : null;
  };
  const ms = Number(get("retry-after-ms"));
  if (get("retry-after-ms") !== null && Number.isFinite(ms) && ms >= 0) return ms;
  const raw = get("retry-after")?.trim();
  if (!raw) return null;
  const secs = Number(raw);
  if (Number.isFinite(secs) && secs >= 0) return secs * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

function messageOf(e: unknown): string {
  const said = field(field(e, "error"), "message") ?? field(e, "message");
  return typeof said === "string" ? (said.split("\n")[0] ?? "") : String(e);
}

function field(value: unknown, key: string): unknown {
  if (typeof value !== "object" || value === null || !(key in value)) return undefined;
  return Reflect.get(value, key);
}
