import {
  createAgent,
  FakeToolCallingModel,
  HumanMessage,
  modelCallLimitMiddleware,
  toolStrategy,
} from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { isDevflowError } from "../errors/index.js";
import { answerRepairMiddleware } from "./answer-repair-middleware.js";

const Answer = z
  .object({ status: z.enum(["ok", "bad"]), summary: z.string().min(1) })
  .meta({ title: "answer" });
const answerCall = (id: string, args: Record<string, unknown>) => [{ id, name: "answer", args }];

function agentWith(toolCalls: ReturnType<typeof answerCall>[]) {
  return createAgent({
    model: new FakeToolCallingModel({ toolCalls }),
    tools: [],
    // A system prompt also keeps FakeToolCallingModel from restarting its script when it sees
    // only human messages (the feedback is one).
    systemPrompt: "Answer with the answer tool.",
    responseFormat: toolStrategy(Answer, { handleError: false }),
    middleware: [
      // An afterModel hook: with it, createAgent's own repair path crashes the run.
      modelCallLimitMiddleware({ runLimit: 5, exitBehavior: "end" }),
      answerRepairMiddleware({ role: "observer", answerTool: "answer", feedback: (p) => `fix it: ${p}` }),
    ],
  });
}

describe("answerRepairMiddleware", () => {
  it("repairs an invalid structured answer while afterModel middleware is present (no 'Invalid update for channel' crash)", async () => {
    const agent = agentWith([
      answerCall("a1", { status: "ok" }),
      answerCall("a2", { status: "ok", summary: "fine" }),
    ]);
    const result = await agent.invoke({ messages: [new HumanMessage("go")] });
    expect(result.structuredResponse).toEqual({ status: "ok", summary: "fine" });
  });

  it("gives up after one repair with a MODEL_NO_VALID_ANSWER error naming the role and the problem", async () => {
    const agent = agentWith([
      answerCall("b1", { status: "ok" }),
      answerCall("b2", { status: "nope", summary: "x" }),
    ]);
    const run = agent.invoke({ messages: [new HumanMessage("go")] });
    await expect(run).rejects.toThrow(
      /observer gave an invalid answer answer 2 times; last problems: .*status/,
    );
    await expect(run).rejects.toSatisfy(
      (e: unknown) => e instanceof Error && isDevflowError(e.cause, "MODEL_NO_VALID_ANSWER"),
    );
  });
});
