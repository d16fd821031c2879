import { DevflowError, findCause } from "../errors/index.js";
import { redactSecrets } from "../util/redact.js";
import { isModelCallError, type ModelCallCode, type ModelCallError } from "./contract.js";
import { ATTEMPTS_HEADER, ELAPSED_HEADER, type EndpointFault, isEndpointFault } from "./endpoint-fetch.js";
import { LIMIT_ENV } from "./endpoint-limits.js";

/** Where a failing call went; named in every message so users know which endpoint to check. */
export interface EndpointContext {
  baseURL: string;
  model: string;
}

const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ECONNRESET",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);

/** A one-line, actionable description of a failed model call (HTTP status, connection, timeout). */
export function describeModelError(err: unknown, context?: EndpointContext): string {
  return classify(err, context).message;
}

/** The failure as a ModelCallError (kept as is when it already is one), the original as its cause. */
export function toModelCallError(err: unknown, context: EndpointContext): ModelCallError {
  if (isModelCallError(err)) return err;
  const { code, message, status, truncated } = classify(err, context);
  return new DevflowError(code, message, {
    details: { status: status ?? null, ...(truncated ? { truncated } : {}) },
    cause: err,
  });
}

function classify(
  err: unknown,
  context: EndpointContext | undefined,
): { code: ModelCallCode; message: string; status?: number; truncated?: boolean } {
  const endpoint = context?.baseURL ?? "the model endpoint";
  const model = context?.model === undefined ? "the model" : `model "${context.model}"`;
  const fault = findCause(err, isEndpointFault);
  if (fault !== undefined) return classifyFault(fault, endpoint, model);
  const status = statusOf(err);
  const tries = attemptsOf(err);
  // Trailing dots trimmed: the message goes on with a sentence of its own.
  const said = redactSecrets(serverMessage(err)).replace(/\.+$/, "");
  const detail = said === "" ? "" : `: ${said}`;
  if (status === 401 || status === 403) {
    return {
      code: "MODEL_AUTH",
      status,
      message: `authentication failed at ${endpoint} (HTTP ${status})${detail}. Check OPENAI_API_KEY.`,
    };
  }
  if (status === 404) {
    return {
      code: "MODEL_NOT_FOUND",
      status,
      message: `${model} or its endpoint was not found at ${endpoint} (HTTP 404)${detail}. Check the model name and OPENAI_BASE_URL.`,
    };
  }
  if (status === 429) {
    const quota = codeOf(err) === "insufficient_quota";
    return {
      code: "MODEL_RATE_LIMIT",
      status,
      message: quota
        ? `quota exhausted at ${endpoint} (HTTP 429)${detail}. Check the account's plan and billing.`
        : `rate limited by ${endpoint} (HTTP 429${tries})${detail}. Wait and retry, or lower concurrency.`,
    };
  }
  if (status !== undefined && status >= 500) {
    return {
      code: "MODEL_SERVER",
      status,
      message: `server error from ${endpoint} (HTTP ${status}${tries})${detail}. The endpoint failed; retry later.`,
    };
  }
  if (status !== undefined) {
    return {
      code: "MODEL_REQUEST",
      status,
      message: `${endpoint} rejected the request to ${model} (HTTP ${status})${detail}`,
    };
  }
  if (isTimeout(err)) {
    return {
      code: "MODEL_TIMEOUT",
      message: `the request to ${endpoint} timed out${detail}. ${RAISE_LIMITS}`,
    };
  }
  const code = connectionCode(err);
  if (code !== undefined || nameOf(err) === "APIConnectionError") {
    return {
      code: "MODEL_CONNECTION",
      message: `cannot reach ${endpoint}${code === undefined ? "" : ` (${code})`}. Is the server running? Check OPENAI_BASE_URL.`,
    };
  }
  return { code: "MODEL_REQUEST", message: `model call to ${endpoint} failed${detail}` };
}

const RAISE_LIMITS = `Check the server, or raise ${LIMIT_ENV.timeoutMs} (seconds per request) and ${LIMIT_ENV.budgetMs} (seconds per call).`;

/** A fault endpointFetch found: worded here, with how often and how long it was tried. */
function classifyFault(
  fault: EndpointFault,
  endpoint: string,
  model: string,
): { code: ModelCallCode; message: string; truncated?: boolean } {
  const tried = `${fault.attempts} attempt${fault.attempts === 1 ? "" : "s"} in ${Number((fault.elapsedMs / 1000).toFixed(1))} s`;
  switch (fault.kind) {
    case "stall":
      return {
        code: "MODEL_TIMEOUT",
        message: `no answer from ${endpoint}: ${fault.detail} (${tried}). ${RAISE_LIMITS}`,
      };
    case "truncated":
      return {
        code: "MODEL_CONNECTION",
        message: `the answer from ${endpoint} was cut off: ${fault.detail} (${tried}). The server or a proxy dropped it; retry later.`,
      };
    case "reset":
      return {
        code: "MODEL_CONNECTION",
        message: `${endpoint} dropped the connection: ${fault.detail} (${tried}). Is the server healthy? Check OPENAI_BASE_URL.`,
      };
    case "not_json":
      if (fault.cutOff)
        return {
          code: "MODEL_BAD_RESPONSE",
          truncated: true,
          message: `the answer from ${endpoint} was cut off: ${fault.detail} (${tried}). The server or a proxy dropped the rest; retry later.`,
        };
      return {
        code: "MODEL_BAD_RESPONSE",
        message: `${endpoint} answered ${model} with a body that is not JSON (${redactSecrets(fault.detail)}). OPENAI_BASE_URL must point at an OpenAI-compatible API (usually ending in /v1), not a web page or login proxy.`,
      };
    case "no_choices":
      return {
        code: "MODEL_BAD_RESPONSE",
        message: `${endpoint} answered ${model} without an answer: ${fault.detail}. The server produced no completion; check the model and the server's logs.`,
      };
  }
}

/** ", 3 attempts" when endpointFetch tried more than once before giving up on an HTTP error. */
function attemptsOf(err: unknown): string {
  const headers = field(err, "headers");
  const get = (name: string): string | null =>
    headers instanceof Headers ? headers.get(name) : ((field(headers, name) as string | undefined) ?? null);
  const attempts = Number(get(ATTEMPTS_HEADER));
  if (!Number.isInteger(attempts) || attempts < 2) return "";
  const elapsed = Number(get(ELAPSED_HEADER));
  return `, ${attempts} attempts${Number.isFinite(elapsed) ? ` in ${Number((elapsed / 1000).toFixed(1))} s` : ""}`;
}

function statusOf(err: unknown): number | undefined {
  const status = field(err, "status");
  return typeof status === "number" ? status : undefined;
}

function codeOf(err: unknown): string | undefined {
  const code = field(err, "code");
  return typeof code === "string" ? code : undefined;
}

function nameOf(err: unknown): string | undefined {
  if (typeof err !== "object" || err === null) return undefined;
  return err.constructor.name;
}

// The server's own words (the OpenAI error body) beat the SDK's decorated message.
function serverMessage(err: unknown): string {
  const body = field(err, "error");
  const fromBody = field(body, "message");
  if (typeof fromBody === "string") return fromBody.trim();
  const message = field(err, "message");
  if (typeof message !== "string") return String(err);
  // The SDK prefixes the status and langchain appends a troubleshooting link on later lines.
  const firstLine = message.split("\n")[0] ?? "";
  return firstLine.replace(/^\d{3}\s+/, "").trim();
}

function isTimeout(err: unknown): boolean {
  const name = field(err, "name");
  return name === "TimeoutError" || nameOf(err) === "APIConnectionTimeoutError";
}

// fetch reports refused connections as nested causes (TypeError → Error/AggregateError with a code).
function connectionCode(err: unknown, depth = 0): string | undefined {
  if (depth > 5 || typeof err !== "object" || err === null) return undefined;
  const code = field(err, "code");
  if (typeof code === "string" && CONNECTION_CODES.has(code)) return code;
  const nested = field(err, "errors");
  if (Array.isArray(nested)) {
    for (const inner of nested) {
      const found = connectionCode(inner, depth + 1);
      if (found !== undefined) return found;
    }
  }
  return connectionCode(field(err, "cause"), depth + 1);
}

function field(value: unknown, key: string): unknown {
  if (typeof value !== "object" || value === null || !(key in value)) return undefined;
  return Reflect.get(value, key);
}
