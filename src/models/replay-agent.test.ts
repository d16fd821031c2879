import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, createAgent, HumanMessage, providerStrategy, tool, toolStrategy } from "langchain";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createModelGateway } from "./create-gateway.js";
import { ReplayChatModel } from "./replay-chat-model.js";
import { boundToolNames } from "./tool-binding.js";

const Observation = z.object({
  status: z.enum(["confirmed", "not_confirmed"]),
  summary: z.string(),
});

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "devflow-agent-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function readFileTool(reads: string[]) {
  return tool(
    async ({ path }: { path: string }) => {
      reads.push(path);
      return `contents of ${path}: throw new Error("boom")`;
    },
    { name: "read_file", description: "Read a file.", schema: z.object({ path: z.string() }) },
  );
}

describe("replay drives langchain's createAgent", () => {
  it("runs one tool call, then turns a {structured} entry into the responseFormat tool call", async () => {
    const path = join(dir, "observer.json");
    writeFileSync(
      path,
      JSON.stringify({
        version: 1,
        calls: {
          observer: [
            {
              content: "Let me read the file.",
              tool_calls: [{ name: "read_file", args: { path: "src/a.ts" } }],
              usage: { input_tokens: 300, output_tokens: 20 },
            },
            {
              structured: { status: "confirmed", summary: "src/a.ts throws boom" },
              usage: { input_tokens: 400, output_tokens: 30 },
            },
          ],
        },
      }),
    );
    const gateway = createModelGateway({ mode: "replay", cassettePath: path });
    gateway.setAttempt("attempt-001");
    const model = gateway.chatModel("observer");
    const reads: string[] = [];
    const agent = createAgent({ model, tools: [readFileTool(reads)], responseFormat: Observation });

    const result = await agent.invoke({ messages: [new HumanMessage("Does src/a.ts throw?")] });

    expect(reads).toEqual(["src/a.ts"]);
    expect(result.structuredResponse).toEqual({ status: "confirmed", summary: "src/a.ts throws boom" });
    // The tool answer reached the model's conversation before the final step.
    expect(
      result.messages.some((m) => m.type === "tool" && String(m.content).includes("contents of src/a.ts")),
    ).toBe(true);

    // The agent offered its own tool plus a generated structured-response tool at every step.
    expect(model).toBeInstanceOf(ReplayChatModel);
    const bound = model instanceof ReplayChatModel ? model.boundTools : [];
    expect(bound).toHaveLength(2);
    const names = boundToolNames(bound[1]);
    expect(names).toContain("read_file");
    const structuredTool = names.find((n) => n !== "read_file");
    expect(structuredTool).toBeDefined();
    const answerCall = result.messages
      .flatMap((m) => (AIMessage.isInstance(m) ? (m.tool_calls ?? []) : []))
      .find((call) => call.name === structuredTool);
    expect(answerCall?.args).toEqual({ status: "confirmed", summary: "src/a.ts throws boom" });

    expect(gateway.usage().by_role.observer).toMatchObject({
      calls: 2,
      input_tokens: 700,
      output_tokens: 50,
    });
    expect(gateway.usage().by_attempt["attempt-001"]?.calls).toBe(2);
  });

  it('an explicit "tool" on the entry picks the responseFormat tool when several are bound', async () => {
    const Fix = z.object({ patch: z.string() }).meta({ title: "fix" });
    const Question = z.object({ question: z.string() }).meta({ title: "question" });
    const path = join(dir, "two.json");
    writeFileSync(
      path,
      JSON.stringify({
        version: 1,
        calls: { insight: [{ structured: { question: "which file?" }, tool: "question" }] },
      }),
    );
    const gateway = createModelGateway({ mode: "replay", cassettePath: path });
    const agent = createAgent({
      model: gateway.chatModel("insight"),
      tools: [],
      responseFormat: toolStrategy([Fix, Question]),
    });
    const result = await agent.invoke({ messages: [new HumanMessage("help")] });
    expect(result.structuredResponse).toEqual({ question: "which file?" });
  });

  it('without "tool", several candidate tools is an error that says to add it', async () => {
    const Fix = z.object({ patch: z.string() }).meta({ title: "fix" });
    const Question = z.object({ question: z.string() }).meta({ title: "question" });
    const path = join(dir, "ambiguous.json");
    writeFileSync(
      path,
      JSON.stringify({ version: 1, calls: { insight: [{ structured: { question: "?" } }] } }),
    );
    const gateway = createModelGateway({ mode: "replay", cassettePath: path });
    const agent = createAgent({
      model: gateway.chatModel("insight"),
      tools: [],
      responseFormat: [Fix, Question],
    });
    await expect(agent.invoke({ messages: [new HumanMessage("help")] })).rejects.toThrow(
      /calls\.insight\[0\]: a "structured" answer fits several bound tools \("fix", "question"\); add "tool"/,
    );
  });

  it("an explicit providerStrategy gets the {structured} entry as JSON content", async () => {
    const path = join(dir, "provider.json");
    writeFileSync(
      path,
      JSON.stringify({
        version: 1,
        calls: { router: [{ structured: { status: "not_confirmed", summary: "no" } }] },
      }),
    );
    const gateway = createModelGateway({ mode: "replay", cassettePath: path });
    const agent = createAgent({
      model: gateway.chatModel("router"),
      tools: [],
      responseFormat: providerStrategy(Observation),
    });
    const result = await agent.invoke({ messages: [new HumanMessage("route")] });
    expect(result.structuredResponse).toEqual({ status: "not_confirmed", summary: "no" });
  });
});
