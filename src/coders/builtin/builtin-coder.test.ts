import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type CoderWorld, createCoderWorld } from "../../../test/conformance/harness.js";
import {
  errorAnswer,
  type ScriptedResponse,
  startOpenAIServer,
  textAnswer,
  toolCallAnswer,
} from "../../../test/support/openai-server.js";
import { isDevflowError } from "../../errors/index.js";
import type { CassetteEntry } from "../../models/cassette.js";
import { createModelGateway } from "../../models/index.js";
import { knownCoders, resolveCoder } from "../index.js";
import { type BuiltinLimits, createBuiltinCoder } from "./index.js";

let world: CoderWorld;
beforeEach(() => {
  world = createCoderWorld("builtin");
});
afterEach(() => world.cleanup());

function replayGateway(entries: CassetteEntry[]) {
  const cassettePath = join(world.root, "cassette.json");
  writeFileSync(cassettePath, JSON.stringify({ version: 1, calls: { coder: entries } }));
  return createModelGateway({ mode: "replay", cassettePath });
}

const request = (overrides: { timeoutMs?: number } = {}) => ({
  prompt: "Make the change.",
  worktree: world.worktree,
  attemptDir: world.attemptDir,
  scratchDir: join(world.root, "scratch"),
  env: {},
  timeoutMs: 60_000,
  ...overrides,
});

const runReplay = (entries: CassetteEntry[], limits: Partial<BuiltinLimits> = {}) =>
  createBuiltinCoder({ models: replayGateway(entries), limits }).run(request());

const toolTurn = (name: string, args: Record<string, unknown>, output_tokens = 0): CassetteEntry => ({
  content: "",
  tool_calls: [{ name, args }],
  usage: { input_tokens: 0, output_tokens },
});

const transcriptLines = (path: string) =>
  readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { type: string; action?: string; kind?: string });

describe("builtin coder: setup", () => {
  it("probe says what to set when no model endpoint is configured, and is ready with one", async () => {
    const bare = await createBuiltinCoder({ env: {} }).probe();
    expect(bare).toMatchObject({ name: "builtin", installed: true, authConfigured: false, version: null });
    expect(bare.hint).toMatch(/set OPENAI_API_KEY, or OPENAI_BASE_URL for a local OpenAI-compatible server/);
    expect(
      (await createBuiltinCoder({ env: { OPENAI_BASE_URL: "http://127.0.0.1:9/v1" } }).probe())
        .authConfigured,
    ).toBe(true);
    expect(await createBuiltinCoder({ models: replayGateway([]), env: {} }).probe()).toMatchObject({
      installed: true,
      hint: null,
    });
  });

  it("run without any model endpoint is refused before anything is written", async () => {
    const error = await createBuiltinCoder({ env: {} })
      .run(request())
      .catch((caught: unknown) => caught);
    if (!isDevflowError(error, "CODER_MISCONFIGURED"))
      throw new Error(`expected CODER_MISCONFIGURED, got ${error}`);
    expect(error.hint).toContain("OPENAI_API_KEY");
    expect(readdirSync(world.attemptDir)).toEqual([]);
  });

  it("is registered as builtin and runs on the gateway it is resolved with", async () => {
    expect(knownCoders()).toContain("builtin");
    const coder = resolveCoder("builtin", {
      models: replayGateway([{ content: "Nothing to do: already done." }]),
    });
    expect(coder.name).toBe("builtin");
    const result = await coder.run(request());
    expect(result).toMatchObject({ status: "ok", finalMessage: "Nothing to do: already done." });
    expect(readFileSync(join(world.attemptDir, "coder_prompt.md"), "utf8")).toBe("Make the change.");
  });

  it("a cassette without an answer for the coder fails loudly instead of looking like a coder error", async () => {
    const run = runReplay([toolTurn("list_files", {})]);
    await expect(run).rejects.toMatchObject({ code: "REPLAY_EXHAUSTED" });
    await expect(run).rejects.toThrow(/role coder call #2/);
  });
});

describe("builtin coder: what the model is given", () => {
  it("the system prompt with its limits, the task as the user message, and the six worktree tools", async () => {
    const server = await startOpenAIServer([textAnswer("Done.")]);
    try {
      const models = createModelGateway({
        mode: "live",
        env: { OPENAI_BASE_URL: server.url },
        maxRetries: 0,
      });
      const result = await createBuiltinCoder({ models, limits: { modelCalls: 7, toolCalls: 9 } }).run(
        request(),
      );
      expect(result.status).toBe("ok");
      const body = server.requests[0]?.body;
      const [system, user] = body?.messages ?? [];
      expect(system?.role).toBe("system");
      expect(JSON.stringify(system?.content)).toContain("You are devflow's builtin Coder");
      expect(JSON.stringify(system?.content)).toContain("at most 7 model turns and 9 tool calls");
      expect(user).toMatchObject({ role: "user", content: "Make the change." });
      const tools = body?.tools?.map((t) => t.function.name).sort();
      expect(tools).toEqual(["edit_file", "list_files", "read_file", "run_command", "search", "write_file"]);
      const runCommand = body?.tools?.find((t) => t.function.name === "run_command")?.function.description;
      expect(runCommand).toMatch(/^Run a shell command/);
      expect(runCommand).not.toContain("your job is to observe");
    } finally {
      await server.close();
    }
  });
});

describe("builtin coder: limits and guards keep the work and say why", () => {
  it("the model call limit ends the run as turn_limit with the edit made so far kept", async () => {
    const result = await runReplay(
      [
        toolTurn("write_file", { path: "half.txt", content: "half\n" }),
        toolTurn("read_file", { path: "half.txt" }),
      ],
      { modelCalls: 2 },
    );
    expect(result.status).toBe("turn_limit");
    expect(result.error).toContain("limit of 2 model turns");
    expect(readFileSync(join(world.worktree, "half.txt"), "utf8")).toBe("half\n");
  });

  it("calls beyond the tool call limit are refused, and the run is turn_limit although the model finished", async () => {
    const twoWrites: CassetteEntry = {
      content: "",
      tool_calls: [
        { name: "write_file", args: { path: "one.txt", content: "1" } },
        { name: "write_file", args: { path: "two.txt", content: "2" } },
      ],
    };
    const result = await runReplay([twoWrites, { content: "Wrote what I could." }], { toolCalls: 1 });
    expect(result.status).toBe("turn_limit");
    expect(result.error).toMatch(/2 tool calls, over the limit of 1/);
    expect(existsSync(join(world.worktree, "one.txt"))).toBe(true);
    expect(existsSync(join(world.worktree, "two.txt"))).toBe(false);
  });

  it("a repeated tool call is nudged, then stops the run as turn_limit; both decisions are in the transcript", async () => {
    const same = () => toolTurn("search", { pattern: "total" });
    const result = await runReplay([same(), same(), same(), same(), same(), same()]);
    expect(result.status).toBe("turn_limit");
    expect(result.error).toMatch(
      /^a loop guard stopped the run .*\(repeated_tool_call\): search was called 3 times/,
    );
    const guards = transcriptLines(result.transcriptPath).filter((line) => line.type === "guard");
    expect(guards.map((g) => [g.kind, g.action])).toEqual([
      ["repeated_tool_call", "nudge"],
      ["repeated_tool_call", "stop"],
    ]);
  });

  it("the output-token budget is nudged, then stops the run as budget", async () => {
    const turn = (i: number) => toolTurn("read_file", { path: `f${i}.txt` }, 7000);
    const result = await runReplay([1, 2, 3, 4].map(turn));
    expect(result.status).toBe("budget");
    expect(result.error).toContain("over the budget of 12000");
    expect(result.usage).toMatchObject({ output_tokens: 28_000 });
  });

  it("the nudge the model gets comes from src/agents/builtin-coder and names what it repeated", async () => {
    const server = await startOpenAIServer([
      toolCallAnswer("search", { pattern: "total" }),
      toolCallAnswer("search", { pattern: "total" }),
      toolCallAnswer("search", { pattern: "total" }),
      textAnswer("Stopped searching; done."),
    ]);
    try {
      const models = createModelGateway({
        mode: "live",
        env: { OPENAI_BASE_URL: server.url },
        maxRetries: 0,
      });
      const result = await createBuiltinCoder({ models }).run(request());
      expect(result.status).toBe("ok");
      const last = server.requests.at(-1)?.body.messages?.at(-1);
      expect(last?.role).toBe("user");
      expect(String(last?.content)).toMatch(
        /^devflow notice: search was called 3 times in a row with the same arguments \(\{"pattern":"total"\}\)\. The same call/,
      );
    } finally {
      await server.close();
    }
  });
});

describe("builtin coder: model failures", () => {
  const runAgainst = async (script: ScriptedResponse[]) => {
    const server = await startOpenAIServer(script);
    try {
      const models = createModelGateway({
        mode: "live",
        env: { OPENAI_BASE_URL: server.url },
        maxRetries: 0,
      });
      const result = await createBuiltinCoder({
        models,
        limits: { modelRetries: 1, modelRetryDelayMs: 1 },
      }).run(request());
      return { result, requests: server.requests.length };
    } finally {
      await server.close();
    }
  };

  it("a transient server error is retried and the run goes on", async () => {
    const { result, requests } = await runAgainst([errorAnswer(500, "upstream hiccup"), textAnswer("Done.")]);
    expect(result.status).toBe("ok");
    expect(requests).toBe(2);
  });

  it("a server error that outlasts the retries is an error naming the endpoint's words", async () => {
    const { result } = await runAgainst([
      errorAnswer(500, "upstream down"),
      errorAnswer(500, "upstream down"),
    ]);
    expect(result.status).toBe("error");
    expect(result.error).toMatch(
      /server error from http:\/\/127\.0\.0\.1:\d+\/v1 \(HTTP 500\): upstream down/,
    );
    expect(transcriptLines(result.transcriptPath).map((l) => l.type)).toEqual([
      "start",
      "model_error",
      "end",
    ]);
  });

  it("an authentication failure is not retried", async () => {
    const { result, requests } = await runAgainst([errorAnswer(401, "bad key"), textAnswer("never")]);
    expect(result.status).toBe("auth");
    expect(requests).toBe(1);
  });
});
