import { classifyHttpAnswer, type ProviderFault } from "./provider-fault.js";

/** The live OpenAI-compatible endpoint the daemon's tickets talk to. */
export interface ProbeTarget {
  /** e.g. http://127.0.0.1:8080/v1 (no trailing slash needed). */
  baseURL: string;
  apiKey: string;
}

const MAX_BODY_CHARS = 2000;

/**
 * The readiness probe (issue 12, ADR 0052): one GET `<baseURL>/models`, bounded by `timeoutMs`
 * for the answer and its body. It costs no tokens and meets the same faults a run would (a refused
 * key, a wrong URL, a rate limit, a server down), so its failure is classified like a run's; a
 * status that is no provider fault (e.g. 400 from a server without the route) lets the claim go on.
 * Null: ready.
 */
export async function probeEndpoint(
  target: ProbeTarget,
  timeoutMs: number,
  send: typeof fetch = fetch,
): Promise<ProviderFault | null> {
  const url = `${target.baseURL.replace(/\/+$/, "")}/models`;
  const where = `readiness probe GET ${url}`;
  try {
    const response = await send(url, {
      headers: { authorization: `Bearer ${target.apiKey}` },
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (response.ok) {
      await response.body?.cancel();
      return null;
    }
    const text = (await response.text()).slice(0, MAX_BODY_CHARS);
    const body = parseJson(text);
    const error = field(body, "error");
    const apiCode = field(error, "code");
    const said = field(error, "message");
    const fault = classifyHttpAnswer({
      status: response.status,
      apiCode: typeof apiCode === "string" ? apiCode : undefined,
      retryAfterMs: retryAfterMs(response.headers),
      message: `${where}: ${typeof said === "string" ? said : (text.split("\n")[0] ?? "").slice(0, 200)}`,
    });
    return fault;
  } catch (error) {
    const name = field(error, "name");
    const why =
      name === "TimeoutError" || name === "AbortError"
        ? `no answer within ${timeoutMs / 1000} s`
        : `cannot reach the endpoint (${causeText(error)})`;
    return { kind: "outage_backoff", reason: `${where}: ${why}`, retryAfterMs: null, from: "http" };
  }
}

function retryAfterMs(headers: Headers): number | null {
  const raw = headers.get("retry-after")?.trim();
  if (!raw) return null;
  const secs = Number(raw);
  if (Number.isFinite(secs) && secs >= 0) return secs * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

function causeText(error: unknown): string {
  const cause = field(error, "cause");
  const code = field(cause, "code");
  if (typeof code === "string") return code;
  const message = field(cause, "message") ?? field(error, "message");
  return typeof message === "string" ? message : String(error);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function field(value: unknown, key: string): unknown {
  if (typeof value !== "object" || value === null || !(key in value)) return undefined;
  return Reflect.get(value, key);
}
