import { describe, expect, it } from "vitest";
import { buildCodexArgs, CodexStream, codexConfigToml, codexSpec, interpretCodex } from "./codex.js";

const streamOf = (...events: object[]) => {
  const stream = new CodexStream();
  for (const event of events) stream.push(JSON.stringify(event));
  return stream;
};
const run = (exitCode: number | null, output = "") => ({ exitCode, output });
const completed = {
  type: "turn.completed",
  usage: { input_tokens: 10, cached_input_tokens: 4, output_tokens: 3 },
};

describe("codex arguments", () => {
  it("runs exec --json -C <worktree> in workspace-write with the prompt as the last argument", () => {
    const built = buildCodexArgs({ model: "o4", worktree: "/w", configHome: "/h", prompt: "go" }, {});
    expect(built).toEqual({
      args: [
        "exec",
        "--json",
        "-C",
        "/w",
        "--sandbox",
        "workspace-write",
        "--output-last-message",
        "/h/last-message.txt",
        "--model",
        "o4",
        "go",
      ],
      stdin: "closed",
    });
  });

  it("writes a Responses-API provider into config.toml, the key by variable name only", () => {
    const toml = codexConfigToml(
      { baseUrl: "http://h/v1/", model: "m", apiKeyEnv: "MY_KEY", api: "responses" },
      "m",
    );
    expect(toml).toContain('model_provider = "devflow"');
    expect(toml).toContain('base_url = "http://h/v1"');
    expect(toml).toContain('env_key = "MY_KEY"');
    expect(toml).toContain('wire_api = "responses"');
  });

  it("marks a chat-completions endpoint as unusable, naming the alternatives", () => {
    const spec = codexSpec({ endpoint: { baseUrl: "http://h/v1", model: "m" } });
    expect(spec.misconfiguration?.reason).toContain("Responses API");
    expect(spec.misconfiguration?.hint).toContain("junie, opencode or aider");
    expect(
      codexSpec({ endpoint: { baseUrl: "http://h/v1", model: "m", api: "responses" } }).misconfiguration,
    ).toBeUndefined();
  });
});

describe("codex event interpretation", () => {
  it("takes the last agent message and sums usage over turns", () => {
    const stream = streamOf(
      { type: "thread.started", thread_id: "t1" },
      { type: "item.completed", item: { type: "agent_message", text: "first" } },
      completed,
      { type: "item.completed", item: { type: "agent_message", text: "last" } },
      completed,
    );
    expect(interpretCodex(stream, run(0), null)).toEqual({
      status: "ok",
      finalMessage: "last",
      usage: { input_tokens: 20, output_tokens: 6, cost_usd: null },
      error: null,
    });
    expect(stream.threadId).toBe("t1");
  });

  it("an error event followed by a completed turn was a retried hiccup, not a failure", () => {
    const stream = streamOf({ type: "error", message: "Reconnecting... 1/5" }, completed);
    expect(interpretCodex(stream, run(0), "from -o file").status).toBe("ok");
    expect(interpretCodex(stream, run(0), "from -o file").finalMessage).toBe("from -o file");
  });

  it("turn.failed with a usage limit is rate_limit, even on exit 0", () => {
    const stream = streamOf({ type: "turn.failed", error: { message: "You've hit your usage limit" } });
    expect(interpretCodex(stream, run(0), null).status).toBe("rate_limit");
  });

  it("exit 0 without any completed turn is not success", () => {
    expect(interpretCodex(streamOf({ type: "thread.started", thread_id: "t" }), run(0), null).status).toBe(
      "error",
    );
  });
});
