import { setTimeout as delay } from "node:timers/promises";
import { redact, redactDeep } from "../util/redact.js";
import type { EndpointLimits } from "./endpoint-limits.js";

/**
 * The transport boundary of every live model call. One fetch wrapper does what the SDK cannot be
 * trusted with: it redacts the request body (ADR 0030), bounds each attempt (headers and the whole
 * body) and the call as a whole, retries only retryable faults (429 honouring Retry-After, 5xx,
 * a reset connection, a stall, a cut-off body), and checks that a 200 is a chat-completions body
 * before langchain reads `choices[0].message` out of it. The SDK is given no retries of its own.
 * Faults it detects are thrown as `EndpointFault`; `model-errors.ts` turns them into one-line
 * DevflowErrors (the one place failures are worded).
 */

export type FaultKind =
  /** No answer (or no further byte) within the request timeout or what was left of the budget. */
  | "stall"
  /** The connection closed while the body was coming: a truncated answer. */
  | "truncated"
  /** The connection closed before any answer. */
  | "reset"
  /** HTTP 2xx, but the body is not JSON (an HTML login page, a proxy's error page). */
  | "not_json"
  /** A JSON body without a usable `choices[0].message`. */
  | "no_choices";

const RETRYABLE_FAULTS: ReadonlySet<FaultKind> = new Set(["stall", "truncated", "reset"]);
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);
/** Header the wrapper adds to a failed answer it returns, so the error message can say how hard it tried. */
export const ATTEMPTS_HEADER = "x-devflow-attempts";
export const ELAPSED_HEADER = "x-devflow-elapsed-ms";
const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 8_000;
/** A retry with less time than this left in the budget could not get an answer anyway. */
const MIN_ATTEMPT_MS = 200;

/**
 * A fault the wrapper found. Its message avoids the words "timed out": the SDK rewrites any fetch
 * error whose text matches /timed? ?out/ into a bare APIConnectionTimeoutError and drops the cause.
 */
export class EndpointFault extends Error {
  override readonly name = "EndpointFault";
  constructor(
    readonly kind: FaultKind,
    /** What was seen, for the message (content type, first characters, the limit that ran out). */
    readonly detail: string,
    readonly attempts: number,
    readonly elapsedMs: number,
    /**
     * `not_json` only: the body is the start of a JSON document that ends early (a proxy or server
     * cut the answer but closed the response cleanly), not a page of another kind.
     */
    readonly cutOff = false,
  ) {
    super(`endpoint fault ${kind}: ${detail}`);
  }
}

export function isEndpointFault(error: unknown): error is EndpointFault {
  return error instanceof EndpointFault;
}

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

type Attempt =
  | { kind: "answer"; response: Response; text: string | null }
  | { kind: "fault"; fault: FaultKind; detail: string };

export function endpointFetch(limits: EndpointLimits, send: Fetch = fetch): Fetch {
  return async (input, init) => {
    const body = typeof init?.body === "string" ? redactBody(init.body) : init?.body;
    const request: RequestInit = { ...init, ...(body === undefined ? {} : { body }) };
    const streaming = typeof body === "string" && isStreamingBody(body);
    const signal = init?.signal ?? undefined;
    const started = Date.now();
    const deadline = started + limits.budgetMs;
    for (let attempt = 1; ; attempt += 1) {
      const timeoutMs = Math.min(limits.timeoutMs, Math.max(1, deadline - Date.now()));
      const outcome = await attemptOnce(send, input, request, timeoutMs, streaming, signal);
      const elapsed = () => Date.now() - started;
      const retriesLeft = attempt <= limits.maxRetries;
      if (outcome.kind === "fault") {
        const wait = backoff(attempt);
        if (RETRYABLE_FAULTS.has(outcome.fault) && retriesLeft && fits(deadline, wait)) {
          await delay(wait, undefined, signal === undefined ? {} : { signal });
          continue;
        }
        throw new EndpointFault(outcome.fault, outcome.detail, attempt, elapsed());
      }
      const { response, text } = outcome;
      if (text === null) return response; // a streamed answer: its body is read by the SDK
      if (response.ok) {
        checkCompletion(input, text, attempt, elapsed());
        return rebuilt(response, text, attempt, elapsed());
      }
      if (RETRYABLE_STATUSES.has(response.status) && retriesLeft && !quotaExhausted(text)) {
        const wait = retryAfterMs(response.headers) ?? backoff(attempt);
        if (fits(deadline, wait)) {
          await delay(wait, undefined, signal === undefined ? {} : { signal });
          continue;
        }
      }
      return rebuilt(response, text, attempt, elapsed());
    }
  };
}

async function attemptOnce(
  send: Fetch,
  input: string | URL | Request,
  request: RequestInit,
  timeoutMs: number,
  streaming: boolean,
  outer: AbortSignal | undefined,
): Promise<Attempt> {
  const controller = new AbortController();
  const forward = () => controller.abort(outer?.reason);
  outer?.addEventListener("abort", forward, { once: true });
  let stalled = false;
  const timer = setTimeout(() => {
    stalled = true;
    controller.abort();
  }, timeoutMs);
  let headersSeen = false;
  try {
    const response = await send(input, { ...request, signal: controller.signal });
    headersSeen = true;
    if (streaming && response.ok) return { kind: "answer", response, text: null };
    return { kind: "answer", response, text: await response.text() };
  } catch (error) {
    if (outer?.aborted) throw error; // the caller's own abort (Ctrl-C, the SDK's own timer)
    if (stalled)
      return {
        kind: "fault",
        fault: "stall",
        detail: headersSeen
          ? `the answer stopped arriving before the ${seconds(timeoutMs)} limit`
          : `nothing arrived within ${seconds(timeoutMs)}`,
      };
    if (isSocketClosed(error))
      return headersSeen
        ? { kind: "fault", fault: "truncated", detail: "the connection closed in the middle of the answer" }
        : { kind: "fault", fault: "reset", detail: "the connection closed before any answer" };
    throw error; // refused, DNS: the SDK reports it and model-errors.ts words it
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener("abort", forward);
  }
}

/** A 2xx chat-completions answer must be JSON with at least one choice that has a message. */
function checkCompletion(
  input: string | URL | Request,
  text: string,
  attempts: number,
  elapsedMs: number,
): void {
  if (!urlOf(input).endsWith("/chat/completions")) return;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    const cutOff = isCutOffJson(text);
    throw new EndpointFault(
      "not_json",
      cutOff
        ? `the JSON body ends early after ${text.length} characters`
        : `the body starts with ${JSON.stringify(preview(text))}`,
      attempts,
      elapsedMs,
      cutOff,
    );
  }
  const choices = typeof json === "object" && json !== null ? Reflect.get(json, "choices") : undefined;
  if (!Array.isArray(choices) || choices.length === 0)
    throw new EndpointFault(
      "no_choices",
      Array.isArray(choices) ? "`choices` is empty" : "the body has no `choices` list",
      attempts,
      elapsedMs,
    );
  const message =
    typeof choices[0] === "object" && choices[0] !== null ? Reflect.get(choices[0], "message") : undefined;
  if (typeof message !== "object" || message === null)
    throw new EndpointFault("no_choices", "`choices[0]` has no `message`", attempts, elapsedMs);
}

/** The answer again, with its body already read, and how many attempts it took. */
function rebuilt(response: Response, text: string, attempts: number, elapsedMs: number): Response {
  const headers = new Headers(response.headers);
  // The body is decoded text now; its original length and encoding no longer describe it.
  headers.delete("content-length");
  headers.delete("content-encoding");
  headers.set(ATTEMPTS_HEADER, String(attempts));
  headers.set(ELAPSED_HEADER, String(elapsedMs));
  return new Response(text, { status: response.status, statusText: response.statusText, headers });
}

/** Retry-After (seconds or an HTTP date) or retry-after-ms, in ms; undefined when absent or unreadable. */
export function retryAfterMs(headers: Headers): number | undefined {
  const ms = Number(headers.get("retry-after-ms"));
  if (headers.has("retry-after-ms") && Number.isFinite(ms) && ms >= 0) return ms;
  const raw = headers.get("retry-after")?.trim();
  if (!raw) return undefined;
  const secs = Number(raw);
  if (Number.isFinite(secs) && secs >= 0) return secs * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function fits(deadline: number, waitMs: number): boolean {
  return Date.now() + waitMs + MIN_ATTEMPT_MS <= deadline;
}

function backoff(attempt: number): number {
  return Math.min(FIRST_BACKOFF_MS * 2 ** (attempt - 1), MAX_BACKOFF_MS);
}

// An account out of credit stays out of credit: no retry.
function quotaExhausted(text: string): boolean {
  return text.includes("insufficient_quota");
}

// undici: a body cut off is TypeError("terminated"), a socket closed early "fetch failed"; both
// carry the socket error (UND_ERR_SOCKET "other side closed", ECONNRESET) as a cause.
function isSocketClosed(error: unknown, depth = 0): boolean {
  if (depth > 4 || typeof error !== "object" || error === null) return false;
  const code = Reflect.get(error, "code");
  if (code === "UND_ERR_SOCKET" || code === "ECONNRESET" || code === "EPIPE") return true;
  if (error instanceof TypeError && error.message === "terminated") return true;
  return isSocketClosed(Reflect.get(error, "cause"), depth + 1);
}

function isStreamingBody(body: string): boolean {
  try {
    const json: unknown = JSON.parse(body);
    return typeof json === "object" && json !== null && Reflect.get(json, "stream") === true;
  } catch {
    return false;
  }
}

function urlOf(input: string | URL | Request): string {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  return url.split("?")[0] ?? url;
}

/**
 * A body that opens a JSON object or array and ends before closing it (inside a string or with
 * brackets still open): a cut-off answer, which a later try may get whole, unlike an HTML page.
 */
export function isCutOffJson(text: string): boolean {
  const body = text.trimStart();
  if (!body.startsWith("{") && !body.startsWith("[")) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      depth--;
      if (depth === 0) return false; // closed: whatever is wrong with it, it is not cut off
    }
  }
  return inString || depth > 0;
}

/** The first characters of a body, one line, for a message (redacted when the error is built). */
function preview(text: string): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length > 40 ? `${oneLine.slice(0, 40)}…` : oneLine;
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/** The model-request boundary (ADR 0030): known secrets never leave in a request body. */
function redactBody(body: string): string {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return redact(body);
  }
  const redacted = redactDeep(json);
  return redacted === json ? body : JSON.stringify(redacted);
}
