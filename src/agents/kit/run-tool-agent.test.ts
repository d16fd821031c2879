import { tmpdir } from "node:os";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { ChatResult } from "@langchain/core/outputs";
import { AIMessage, type BaseMessage } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DevflowError, isDevflowError } from "../../errors/index.js";
import { defineTool } from "../../tools/index.js";
import { runToolAgent, thrownBy } from "./run-tool-agent.js";

/** Plays a script of assistant turns (or errors) and records how many calls it got. */
class ScriptedModel extends BaseChatModel {
  calls = 0;
  constructor(private readonly script: (turn: number) => AIMessage | Error) {
    super({});
  }
  _llmType(): string {
    return "scripted";
  }
  override bindTools() {
    return this;
  }
  async _generate(_messages: BaseMessage[]): Promise<ChatResult> {
    const next = this.script(this.calls++);
    if (next instanceof Error) throw next;
    return { generations: [{ message: next, text: next.text }] };
  }
}

const echo = defineTool({
  name: "echo",
  description: "Echoes its text.",
  schema: z.object({ text: z.string() }),
  narrowHint: "",
  run: async ({ text }) => `echo: ${text}`,
}).bind({ worktree: tmpdir(), signal: new AbortController().signal, written: new Set() });

const callEcho = (n: number) =>
  new AIMessage({
    content: "",
    tool_calls: [{ id: `c${n}`, name: "echo", args: { text: `t${n}` }, type: "tool_call" }],
  });

const Answer = z.object({ verdict: z.string() });
const answerSpec = {
  tool: "final_answer",
  description: "The answer.",
  schema: Answer,
  owner: "the test agent's",
  repairFeedback: (problems: string) => `Fix: ${problems}`,
};

const base = (model: BaseChatModel) => ({
  name: "test-agent",
  role: "observer" as const,
  model,
  tools: [echo],
  systemPrompt: "Test.",
  input: "Go.",
  limits: { modelCalls: 3, toolCalls: 10 },
  signal: new AbortController().signal,
});

describe("runToolAgent", () => {
  it("returns the validated structured answer with the tool calls that ran", async () => {
    const model = new ScriptedModel((turn) =>
      turn === 0
        ? callEcho(0)
        : new AIMessage({
            content: "",
            tool_calls: [{ id: "a", name: "final_answer", args: { verdict: "red" }, type: "tool_call" }],
          }),
    );
    const run = await runToolAgent({ ...base(model), answer: answerSpec });
    expect(run.status).toBe("answered");
    if (run.status === "answered") expect(run.answer).toEqual({ verdict: "red" });
    expect(run.toolCalls).toBe(1);
    expect(run.modelCalls).toBe(2);
  });

  it("answers with the final text when the agent has no answer schema", async () => {
    const model = new ScriptedModel((turn) => (turn === 0 ? callEcho(0) : new AIMessage("Done: fixed it.")));
    const run = await runToolAgent(base(model));
    expect(run.status).toBe("answered");
    if (run.status === "answered") expect(run.answer).toBe("Done: fixed it.");
  });

  it("reports the model call limit, not the limit's own message, as how a text agent ended", async () => {
    const model = new ScriptedModel((turn) => callEcho(turn));
    const run = await runToolAgent(base(model));
    expect(run).toMatchObject({ status: "limit_hit", limit: "model_calls", modelCalls: 3 });
    expect(thrownBy(run)).toBeNull();
  });

  it("says no_answer when a structured agent ends in text", async () => {
    const model = new ScriptedModel(() => new AIMessage("I think it is red."));
    const run = await runToolAgent({ ...base(model), answer: answerSpec });
    expect(run.status).toBe("no_answer");
  });

  it("hands back devflow's own error unwrapped from langchain's wrappers", async () => {
    const model = new ScriptedModel(
      () => new DevflowError("MODEL_AUTH", "the endpoint refused the key", { details: { status: 401 } }),
    );
    const run = await runToolAgent({ ...base(model), modelRetry: { maxRetries: 2, initialDelayMs: 1 } });
    expect(run.status).toBe("failed");
    expect(thrownBy(run)).toMatchObject({ code: "MODEL_AUTH" });
    // auth is not transient: no retry.
    expect(model.calls).toBe(1);
  });

  it("retries a transient model failure", async () => {
    const model = new ScriptedModel((turn) =>
      turn === 0
        ? new DevflowError("MODEL_SERVER", "503 from the endpoint", { details: { status: 503 } })
        : new AIMessage("Done."),
    );
    const run = await runToolAgent({ ...base(model), modelRetry: { maxRetries: 2, initialDelayMs: 1 } });
    expect(run.status).toBe("answered");
    expect(model.calls).toBe(2);
  });

  it("fails with MODEL_NO_VALID_ANSWER naming the role after one repair round of an invalid answer", async () => {
    const model = new ScriptedModel(
      () =>
        new AIMessage({
          content: "",
          tool_calls: [{ id: "a", name: "final_answer", args: { verdict: 7 }, type: "tool_call" }],
        }),
    );
    const run = await runToolAgent({ ...base(model), answer: answerSpec });
    expect(run.status).toBe("failed");
    const error = thrownBy(run);
    expect(isDevflowError(error, "MODEL_NO_VALID_ANSWER")).toBe(true);
    expect(String((error as Error).message)).toMatch(/observer/);
    expect(model.calls).toBe(2);
  });

  it("is aborted when its signal fires during the run", async () => {
    const controller = new AbortController();
    const model = new ScriptedModel((turn) => {
      controller.abort();
      return callEcho(turn);
    });
    const run = await runToolAgent({ ...base(model), signal: controller.signal });
    expect(run.status).toBe("aborted");
  });
});
