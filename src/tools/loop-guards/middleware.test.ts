import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  AIMessage,
  type BaseMessage,
  createAgent,
  HumanMessage,
  modelCallLimitMiddleware,
  ToolMessage,
  tool,
  toolCallLimitMiddleware,
} from "langchain";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { CassetteEntry } from "../../models/cassette.js";
import { createModelGateway } from "../../models/index.js";
import { loopGuardMiddleware } from "./middleware.js";
import type { GuardDecision } from "./types.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Tools named like devflow's, so the per-tool thresholds apply; read_file fails for "missing*". */
const tools = [
  tool(async ({ pattern }: { pattern: string }) => `src/a.js:1: ${pattern}`, {
    name: "search",
    description: "search",
    schema: z.object({ pattern: z.string() }),
  }),
  tool(
    async ({ path }: { path: string }) =>
      path.startsWith("missing") ? `Refused: "${path}" does not exist in the worktree.` : `${path}: 1| x`,
    { name: "read_file", description: "read", schema: z.object({ path: z.string() }) },
  ),
];

const call = (
  name: string,
  args: Record<string, unknown>,
  extra: Partial<CassetteEntry> = {},
): CassetteEntry => ({
  content: "",
  tool_calls: [{ name, args }],
  ...extra,
});

/** A createAgent agent over a replay cassette, with the call limits (afterModel hooks) and the guards. */
function guardedAgent(entries: CassetteEntry[]) {
  const dir = mkdtempSync(join(tmpdir(), "devflow-guards-"));
  dirs.push(dir);
  const cassettePath = join(dir, "cassette.json");
  writeFileSync(cassettePath, JSON.stringify({ version: 1, calls: { coder: entries } }));
  const decisions: GuardDecision[] = [];
  const agent = createAgent({
    model: createModelGateway({ mode: "replay", cassettePath }).chatModel("coder"),
    tools,
    systemPrompt: "You are a test agent.",
    middleware: [
      modelCallLimitMiddleware({ runLimit: 50, exitBehavior: "end" }),
      toolCallLimitMiddleware({ runLimit: 100, exitBehavior: "continue" }),
      loopGuardMiddleware({
        nudge: (trip) => `NUDGE ${trip.kind}: ${trip.detail}`,
        onDecision: (decision) => decisions.push(decision),
      }),
    ],
  });
  const run = async () => {
    const result = await agent.invoke({ messages: [new HumanMessage("go")] }, { recursionLimit: 200 });
    return { messages: result.messages as BaseMessage[], decisions };
  };
  return { run };
}

const nudgesIn = (messages: BaseMessage[]) =>
  messages.filter((m) => HumanMessage.isInstance(m) && m.text.startsWith("NUDGE")).map((m) => m.text);

/** The run ended on the guard's stop message while the model still wanted to call tools. */
function expectStopped(messages: BaseMessage[], kind: string) {
  const last = messages.at(-1);
  expect(AIMessage.isInstance(last) && last.text).toMatch(
    new RegExp(`^devflow stopped the run \\(${kind}\\)`),
  );
  const lastModelTurn = messages.filter((m) => AIMessage.isInstance(m)).at(-2);
  expect(lastModelTurn && AIMessage.isInstance(lastModelTurn) ? lastModelTurn.tool_calls?.length : 0).toBe(1);
}

describe("loopGuardMiddleware inside createAgent (nudge, then stop)", () => {
  it("the same tool call repeated: nudged after the 3rd search, stopped after 3 more", async () => {
    const same = () => call("search", { pattern: "EMAIL" });
    const { messages, decisions } = await guardedAgent([
      same(),
      same(),
      same(),
      same(),
      same(),
      same(),
    ]).run();
    expect(decisions.map((d) => [d.kind, d.action, d.modelCall])).toEqual([
      ["repeated_tool_call", "nudge", 3],
      ["repeated_tool_call", "stop", 6],
    ]);
    // The nudge sits after the 3rd tool result and before the 4th model turn.
    const nudgeAt = messages.findIndex((m) => HumanMessage.isInstance(m) && m.text.startsWith("NUDGE"));
    expect(ToolMessage.isInstance(messages[nudgeAt - 1])).toBe(true);
    expect(nudgesIn(messages)).toEqual([
      'NUDGE repeated_tool_call: search was called 3 times in a row with the same arguments ({"pattern":"EMAIL"})',
    ]);
    expectStopped(messages, "repeated_tool_call");
  });

  it("the same tool failing: nudged after 3 failures in a row, stopped after 3 more", async () => {
    const missing = (i: number) => call("read_file", { path: `missing-${i}.js` });
    const { messages, decisions } = await guardedAgent([1, 2, 3, 4, 5, 6].map(missing)).run();
    expect(decisions.map((d) => [d.kind, d.action])).toEqual([
      ["tool_error_streak", "nudge"],
      ["tool_error_streak", "stop"],
    ]);
    expect(nudgesIn(messages)[0]).toMatch(/^NUDGE tool_error_streak: read_file failed 3 times in a row/);
    expectStopped(messages, "tool_error_streak");
  });

  it("repeated output: nudged on the 4th identical answer, stopped on the 4th after the nudge", async () => {
    const turn = (i: number) =>
      call("search", { pattern: `p${i}` }, { content: "Let me look at this again." });
    const { messages, decisions } = await guardedAgent([1, 2, 3, 4, 5, 6, 7, 8].map(turn)).run();
    expect(decisions.map((d) => [d.kind, d.action, d.modelCall])).toEqual([
      ["repeated_output", "nudge", 4],
      ["repeated_output", "stop", 8],
    ]);
    expectStopped(messages, "repeated_output");
  });

  it("output-token budget: nudged past 12 000 output tokens, stopped past 12 000 more", async () => {
    const turn = (i: number) =>
      call("search", { pattern: `p${i}` }, { usage: { input_tokens: 10, output_tokens: 7000 } });
    const { messages, decisions } = await guardedAgent([1, 2, 3, 4].map(turn)).run();
    expect(decisions.map((d) => [d.kind, d.action, d.modelCall])).toEqual([
      ["output_budget", "nudge", 2],
      ["output_budget", "stop", 4],
    ]);
    expect(nudgesIn(messages)[0]).toContain("14000 output tokens, over the budget of 12000");
    expectStopped(messages, "output_budget");
  });

  it("a model that changes course after the nudge finishes normally", async () => {
    const same = () => call("search", { pattern: "EMAIL" });
    const { messages, decisions } = await guardedAgent([
      same(),
      same(),
      same(),
      call("read_file", { path: "src/a.js" }),
      { content: "Done: read the file instead." },
    ]).run();
    expect(decisions.map((d) => d.action)).toEqual(["nudge"]);
    expect(messages.at(-1)?.text).toBe("Done: read the file instead.");
  });
});
