import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * An in-process OpenAI-compatible chat-completions server for tests: it answers POST
 * /v1/chat/completions from a scripted queue, records every request, and never streams.
 */

export interface TokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

export type ScriptedResponse =
  | {
      /** An assistant turn calling tools; string args are sent verbatim (to script malformed JSON). */
      toolCalls: { name: string; args: Record<string, unknown> | string; id?: string }[];
      content?: string;
      usage?: TokenUsage;
    }
  | { text: string; usage?: TokenUsage }
  /** An HTTP error with an OpenAI-style body { error: { message, type, code } } (and extra headers). */
  | {
      status: number;
      error: { message: string; type?: string; code?: string | null };
      headers?: Record<string, string>;
    }
  /** Any status, content type and body, verbatim (an HTML page, a JSON body without choices). */
  | { raw: { status: number; contentType: string; body: string } }
  /**
   * A broken transport: `stall` never answers (the socket stays open), `truncate` sends the
   * headers and half the body then closes, `reset` closes the socket without a byte.
   */
  | { fault: "stall" | "truncate" | "reset" };

export interface ChatRequestMessage {
  role: string;
  content: unknown;
  tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

export interface ChatRequestBody {
  model?: string;
  messages?: ChatRequestMessage[];
  tools?: {
    type: string;
    function: { name: string; description?: string; parameters?: unknown; strict?: boolean };
  }[];
  tool_choice?: unknown;
  response_format?: unknown;
  stream?: boolean;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: ChatRequestBody;
  /** Date.now() when the request arrived. */
  at: number;
}

export interface OpenAIServer {
  /** Base URL to use as OPENAI_BASE_URL, e.g. http://127.0.0.1:43121/v1 */
  url: string;
  requests: RecordedRequest[];
  /** Scripted responses not yet served. */
  remaining(): number;
  close(): Promise<void>;
}

export const toolCallAnswer = (
  name: string,
  args: Record<string, unknown> | string,
  usage?: TokenUsage,
): ScriptedResponse => ({ toolCalls: [{ name, args }], ...(usage === undefined ? {} : { usage }) });

export const textAnswer = (text: string, usage?: TokenUsage): ScriptedResponse => ({
  text,
  ...(usage === undefined ? {} : { usage }),
});

export const errorAnswer = (
  status: number,
  message: string,
  code: string | null = null,
): ScriptedResponse => ({
  status,
  error: { message, type: status === 429 ? "requests" : "invalid_request_error", code },
});

/**
 * `models`: answers to GET /v1/models (the daemon's readiness probe), in order; once they run out
 * the route answers 200 with an empty model list. Errors and faults are scripted as for chat.
 */
export async function startOpenAIServer(
  script: ScriptedResponse[],
  options: { models?: ScriptedResponse[] } = {},
): Promise<OpenAIServer> {
  const queue = [...script];
  const models = [...(options.models ?? [])];
  const requests: RecordedRequest[] = [];
  let served = 0;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const path = req.url ?? "/";
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: ChatRequestBody = {};
      try {
        body = raw === "" ? {} : JSON.parse(raw);
      } catch {
        return sendError(res, 400, "request body is not JSON", null);
      }
      requests.push({ method: req.method ?? "", path, headers: req.headers, body, at: Date.now() });
      if (req.method === "GET" && path === "/v1/models") {
        const answer = models.shift();
        if (answer === undefined) return sendJson(res, 200, { object: "list", data: [] });
        if ("fault" in answer) return sendFault(res, answer.fault);
        if ("status" in answer)
          return sendError(
            res,
            answer.status,
            answer.error.message,
            answer.error.code ?? null,
            answer.error.type,
            answer.headers,
          );
        if ("raw" in answer) {
          res.writeHead(answer.raw.status, { "content-type": answer.raw.contentType });
          return res.end(answer.raw.body);
        }
        return sendJson(res, 200, { object: "list", data: [] });
      }
      if (req.method !== "POST" || path !== "/v1/chat/completions") {
        return sendError(res, 404, `no route ${req.method} ${path}`, "unknown_url");
      }
      const next = queue.shift();
      served += 1;
      if (next === undefined) {
        return sendError(
          res,
          500,
          `openai-server: script exhausted (request #${served} has no answer)`,
          null,
        );
      }
      if ("fault" in next) return sendFault(res, next.fault);
      if ("raw" in next) {
        res.writeHead(next.raw.status, { "content-type": next.raw.contentType });
        return res.end(next.raw.body);
      }
      if ("status" in next)
        return sendError(
          res,
          next.status,
          next.error.message,
          next.error.code ?? null,
          next.error.type,
          next.headers,
        );
      // Errors are served to streaming requests too; successful answers are never streamed.
      if (body.stream === true) return sendError(res, 400, "this test server does not stream", null);
      sendJson(res, 200, completion(served, body.model ?? "unknown", next));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    remaining: () => queue.length,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

function sendFault(res: ServerResponse, fault: "stall" | "truncate" | "reset"): void {
  if (fault === "stall") return; // close() ends the socket
  if (fault === "reset") {
    res.socket?.destroy();
    return;
  }
  const body = JSON.stringify(completion(0, "truncated", { text: "this answer is cut off in the middle" }));
  res.writeHead(200, { "content-type": "application/json", "content-length": String(body.length) });
  res.write(body.slice(0, Math.floor(body.length / 2)), () => res.socket?.destroy());
}

type Answer = Extract<ScriptedResponse, { text: string } | { toolCalls: unknown }>;

function completion(n: number, model: string, answer: Answer) {
  const usage = answer.usage ?? { prompt_tokens: 0, completion_tokens: 0 };
  const message =
    "toolCalls" in answer
      ? {
          role: "assistant",
          content: answer.content ?? null,
          tool_calls: answer.toolCalls.map((call, i) => ({
            id: call.id ?? `call_${n}_${i + 1}`,
            type: "function",
            function: {
              name: call.name,
              arguments: typeof call.args === "string" ? call.args : JSON.stringify(call.args),
            },
          })),
        }
      : { role: "assistant", content: answer.text };
  return {
    id: `chatcmpl-${n}`,
    object: "chat.completion",
    created: 0,
    model,
    choices: [{ index: 0, finish_reason: "toolCalls" in answer ? "tool_calls" : "stop", message }],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  code: string | null,
  type?: string,
  headers: Record<string, string> = {},
): void {
  sendJson(
    res,
    status,
    { error: { message, type: type ?? "invalid_request_error", param: null, code } },
    headers,
  );
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}
