/**
 * Regression: "a crash or Ctrl-C after the Observer answered ends the task as needs_more_context
 * for good" (issue 10, point 1).
 *
 * Cause: the Observer's createAgent ran inside a lane node without a checkpointer of its own, so
 * LangGraph lent it the lane's SQLite checkpointer through the node's config (namespace
 * `observe:<task>`). When the node re-executed (resume after a crash), the agent found its own
 * finished checkpoint, replayed it instead of running, ended with no structured answer, and the
 * "no answer" fallback turned a good observation into needs_more_context. The insight agent and
 * the builtin coder used the same pattern.
 *
 * Fix: runToolAgent, the one tool-agent loop, compiles every agent with `checkpointer: false`: an
 * agent run is one unit, and a re-executed node runs it again from the start.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { ChatResult } from "@langchain/core/outputs";
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { AIMessage, type BaseMessage } from "langchain";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { runToolAgent } from "./run-tool-agent.js";

const ANSWER_TOOL = "probe_answer";
const ProbeAnswer = z.object({ verdict: z.string() });

/** Answers with the structured-answer tool on every call, and counts the calls. */
class AnsweringModel extends BaseChatModel {
  calls = 0;
  constructor() {
    super({});
  }
  _llmType(): string {
    return "answering";
  }
  override bindTools() {
    return this;
  }
  async _generate(_messages: BaseMessage[]): Promise<ChatResult> {
    this.calls++;
    const message = new AIMessage({
      content: "",
      tool_calls: [
        { id: `answer-${this.calls}`, name: ANSWER_TOOL, args: { verdict: "seam red" }, type: "tool_call" },
      ],
    });
    return { generations: [{ message, text: "" }] };
  }
}

const LaneState = Annotation.Root({
  verdict: Annotation<string>(),
});

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "devflow-agent-rerun-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("a tool agent inside a checkpointed lane node", () => {
  it("still answers when the node re-executes after a crash that followed the agent's answer", async () => {
    const model = new AnsweringModel();
    let executions = 0;
    const observe = async (): Promise<{ verdict: string }> => {
      executions++;
      const run = await runToolAgent({
        name: "observer",
        role: "observer",
        model,
        tools: [],
        systemPrompt: "Observe.",
        input: "The cart total ignores tax.",
        limits: { modelCalls: 4, toolCalls: 4 },
        answer: {
          tool: ANSWER_TOOL,
          description: "Your final answer.",
          schema: ProbeAnswer,
          owner: "the probe's",
          repairFeedback: (problems) => `Fix: ${problems}`,
        },
        signal: new AbortController().signal,
      });
      // The process dies after the agent answered but before the node finished (SIGKILL, Ctrl-C).
      if (executions === 1) throw new Error("simulated crash after the agent answered");
      return { verdict: run.status === "answered" ? run.answer.verdict : `fallback: ${run.status}` };
    };
    const saver = SqliteSaver.fromConnString(join(dir, "state.sqlite"));
    const lane = new StateGraph(LaneState)
      .addNode("observe", observe)
      .addEdge(START, "observe")
      .addEdge("observe", END)
      .compile({ checkpointer: saver });
    const config = { configurable: { thread_id: "task-1" } };

    await expect(lane.invoke({ verdict: "" }, config)).rejects.toThrow("simulated crash");
    // Resume: LangGraph re-executes the interrupted node from its start.
    const resumed = await lane.invoke(null, config);

    expect(executions).toBe(2);
    expect(resumed.verdict).toBe("seam red");
    expect(model.calls).toBe(2);
  });
});
