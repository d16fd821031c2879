import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Cassette, CassetteEntry } from "../../src/models/cassette.js";

/**
 * A loopback OpenAI-compatible server that answers like a model would for a whole lane: it tells
 * the role from the system prompt's heading (`# Framer`, `# Observer`, …) and serves that role's
 * next cassette entry, so a live run (real HTTP, real request bodies) follows a cassette's script.
 * Every raw request body is kept, for tests that grep what devflow sent.
 */
export interface RoleServer {
  url: string;
  /** Raw request bodies, in arrival order. */
  bodies: string[];
  /** Roles served, in arrival order. */
  served: string[];
  close(): Promise<void>;
}

export type RoleServerMode =
  | { kind: "cassette"; cassette: Cassette }
  | { kind: "error"; status: number; message: string };

const ROLE_BY_HEADING: ReadonlyArray<readonly [RegExp, string]> = [
  [/^#\s*Framer\b/m, "framer"],
  [/^#\s*Observer\b/m, "observer"],
  [/^#\s*Iterator\b/m, "iterator"],
  [/^#\s*Critic\b/m, "critic"],
];

// The agent tools an Observer may call; any other bound tool collects the structured answer.
const AGENT_TOOLS = new Set([
  "read_file",
  "list_files",
  "search",
  "run_command",
  "write_test_file",
  "write_file",
  "edit_file",
]);

interface RequestBody {
  messages?: { role: string; content: unknown }[];
  tools?: { function?: { name?: string } }[];
  tool_choice?: unknown;
}

export async function startRoleServer(mode: RoleServerMode): Promise<RoleServer> {
  const bodies: string[] = [];
  const served: string[] = [];
  const cursor = new Map<string, number>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      bodies.push(raw);
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
      };
      if (mode.kind === "error") {
        return send(mode.status, {
          error: {
            message: mode.message,
            type: "invalid_request_error",
            param: null,
            code: "invalid_api_key",
          },
        });
      }
      const body = JSON.parse(raw) as RequestBody;
      const role = roleOf(body);
      const index = cursor.get(role) ?? 0;
      const entry = mode.cassette.calls[role as keyof Cassette["calls"]]?.[index];
      if (entry === undefined) {
        return send(500, {
          error: { message: `role-server: no answer ${index + 1} for ${role}`, type: "server_error" },
        });
      }
      cursor.set(role, index + 1);
      served.push(role);
      send(200, completion(served.length, entry, body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    bodies,
    served,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

function roleOf(body: RequestBody): string {
  const system = body.messages?.find((m) => m.role === "system" || m.role === "developer");
  const content = system?.content;
  const text =
    typeof content === "string"
      ? content
      : Array.isArray(content)
        ? content.map((part: { text?: string }) => part.text ?? "").join("\n")
        : "";
  for (const [heading, role] of ROLE_BY_HEADING) if (heading.test(text)) return role;
  return `unknown (system prompt: ${text.slice(0, 120)})`;
}

function answerTool(body: RequestBody): string {
  const choice = body.tool_choice;
  if (typeof choice === "object" && choice !== null && "function" in choice) {
    const fn = (choice as { function?: { name?: string } }).function;
    if (fn?.name) return fn.name;
  }
  const names = (body.tools ?? []).flatMap((t) => (t.function?.name ? [t.function.name] : []));
  const answer = names.find((name) => !AGENT_TOOLS.has(name));
  if (answer === undefined)
    throw new Error(`role-server: no structured-answer tool among ${names.join(", ")}`);
  return answer;
}

function completion(n: number, entry: CassetteEntry, body: RequestBody) {
  const calls =
    "structured" in entry
      ? [{ name: answerTool(body), args: entry.structured }]
      : (entry.tool_calls ?? []).map((call) => ({ name: call.name, args: call.args }));
  const message =
    calls.length === 0
      ? { role: "assistant", content: "content" in entry ? (entry.content ?? "") : "" }
      : {
          role: "assistant",
          content: "content" in entry && entry.content !== "" ? entry.content : null,
          tool_calls: calls.map((call, i) => ({
            id: `call_${n}_${i + 1}`,
            type: "function",
            function: { name: call.name, arguments: JSON.stringify(call.args) },
          })),
        };
  return {
    id: `chatcmpl-${n}`,
    object: "chat.completion",
    created: 0,
    model: "gpt-4.1-mini",
    choices: [{ index: 0, finish_reason: calls.length === 0 ? "stop" : "tool_calls", message }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
}
