import { isDevflowError } from "../errors/index.js";
import { DEFAULT_BASE_URL, resolveEndpoint } from "../models/endpoint.js";
import { describeModelError } from "../models/model-errors.js";
import { DEFAULT_ENDPOINT_TIMEOUT_MS } from "./defaults.js";
import type { CheckStatus, EndpointCheck } from "./types.js";

export { DEFAULT_ENDPOINT_TIMEOUT_MS };

const BODY_EXCERPT_CHARS = 300;

export interface EndpointCheckOptions {
  /** Where OPENAI_API_KEY / OPENAI_BASE_URL are read, as the live model layer does (default process.env). */
  env?: NodeJS.ProcessEnv;
  model: string;
  timeoutMs?: number;
  /** Replaced in tests, e.g. to prove that no request is made without a key. */
  fetch?: typeof fetch;
}

const NO_KEY_HINT =
  "Export OPENAI_API_KEY with your API key (api.openai.com), or OPENAI_BASE_URL with the base URL of an " +
  "OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1 (a key is then optional).";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * A failed response in the shape describeModelError reads (the OpenAI SDK's: status, error body,
 * code, message), so doctor words HTTP failures exactly as a failing run would.
 */
function httpFailure(status: number, text: string): Record<string, unknown> {
  const body = parseJson(text);
  const error = isObject(body) ? body.error : undefined;
  const firstLine = text.split("\n", 1)[0]?.slice(0, BODY_EXCERPT_CHARS) ?? "";
  return {
    status,
    error: isObject(error) ? error : undefined,
    code: isObject(error) && typeof error.code === "string" ? error.code : undefined,
    message: typeof error === "string" ? error : firstLine,
  };
}

/** 401/403, 404, 5xx and an exhausted quota stop every run; other refusals of this one request do not. */
function statusForHttp(status: number, failure: Record<string, unknown>): CheckStatus {
  if (status === 429) return failure.code === "insufficient_quota" ? "fail" : "warn";
  if (status === 401 || status === 403 || status === 404 || status >= 500) return "fail";
  return "warn";
}

/**
 * The cheapest request that proves a run can use the endpoint: a 1-token chat completion with the
 * configured model (a model listing would not catch a wrong model name). It costs a few tokens.
 */
export async function checkModelEndpoint(options: EndpointCheckOptions): Promise<EndpointCheck> {
  const env = options.env ?? process.env;
  const model = options.model;
  const baseUrl = (env.OPENAI_BASE_URL?.trim() || DEFAULT_BASE_URL).replace(/\/+$/, "");
  const report = (
    status: CheckStatus,
    detail: string,
    hint: string | null = null,
    httpStatus: number | null = null,
  ): EndpointCheck => ({
    name: "model_endpoint",
    status,
    base_url: baseUrl,
    model,
    http_status: httpStatus,
    detail,
    hint,
  });

  let apiKey: string;
  try {
    apiKey = resolveEndpoint(env).apiKey;
  } catch (error) {
    if (!isDevflowError(error, "MODEL_CONFIG")) throw error;
    return report(
      "fail",
      "no key configured: neither OPENAI_API_KEY nor OPENAI_BASE_URL is set",
      NO_KEY_HINT,
    );
  }
  let url: URL;
  try {
    url = new URL(`${baseUrl}/chat/completions`);
  } catch {
    return report(
      "fail",
      `OPENAI_BASE_URL=${JSON.stringify(baseUrl)} is not a URL`,
      "Set it to the API's base URL, e.g. http://127.0.0.1:8080/v1.",
    );
  }

  const context = { baseURL: baseUrl, model };
  const doFetch = options.fetch ?? fetch;
  try {
    const response = await doFetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${apiKey}` },
      body: JSON.stringify({ model, messages: [{ role: "user", content: "Reply with OK." }], max_tokens: 1 }),
      signal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_ENDPOINT_TIMEOUT_MS),
    });
    const text = await response.text();
    if (response.ok) {
      const body = parseJson(text);
      if (isObject(body) && Array.isArray(body.choices)) {
        return report(
          "ok",
          `reachable; model "${model}" answered (HTTP ${response.status})`,
          null,
          response.status,
        );
      }
      return report(
        "fail",
        `${baseUrl} answered HTTP ${response.status}, but not with a chat completion`,
        "Point OPENAI_BASE_URL at the API's base URL (the part before /chat/completions, usually ending in /v1).",
        response.status,
      );
    }
    const failure = httpFailure(response.status, text);
    const status = statusForHttp(response.status, failure);
    const detail = describeModelError(failure, context);
    return report(
      status,
      status === "warn"
        ? `${detail} (the endpoint is reachable and took the key; only doctor's minimal request was refused)`
        : detail,
      null,
      response.status,
    );
  } catch (error) {
    const detail = describeModelError(error, context);
    // fetch hides the reason it refused or failed (e.g. "bad port") in its cause; a connection
    // error described as "cannot reach" already names it.
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : "";
    return report(
      "fail",
      cause === "" || detail.startsWith("cannot reach") ? detail : `${detail} (${cause})`,
    );
  }
}
