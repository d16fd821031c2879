import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createModelGateway } from "./create-gateway.js";

const Verdict = z.object({ verdict: z.enum(["pass", "fail"]), notes: z.string() });
const verdictCall = (role: "critic" | "framer") => ({
  role,
  name: "verdict",
  description: "Judge.",
  schema: Verdict,
  messages: [new HumanMessage("judge this")],
});

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "devflow-replay-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function cassette(content: unknown, name = "cassette.json"): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

describe("replay gateway", () => {
  it("reports the answers no call consumed, per role, once a replay ends", async () => {
    const answer = { structured: { verdict: "pass", notes: "ok" } };
    const path = cassette({ version: 1, calls: { critic: [answer, answer, answer], framer: [answer] } });
    const gateway = createModelGateway({ mode: "replay", cassettePath: path, env: {} });
    expect(gateway.unusedReplies()).toEqual({ critic: 3, framer: 1 });
    await gateway.structured(verdictCall("critic"));
    await gateway.structured(verdictCall("framer"));
    expect(gateway.unusedReplies()).toEqual({ critic: 2 });
  });

  it("answers each role's calls in order from its own queue, without any endpoint configured", async () => {
    const path = cassette({
      version: 1,
      calls: {
        critic: [
          {
            structured: { verdict: "fail", notes: "critic 1" },
            usage: { input_tokens: 1000, output_tokens: 100 },
          },
          { structured: { verdict: "pass", notes: "critic 2" } },
        ],
        framer: [{ structured: { verdict: "pass", notes: "framer 1" } }],
      },
    });
    const gateway = createModelGateway({ mode: "replay", cassettePath: path, env: {} });

    expect(await gateway.structured(verdictCall("critic"))).toEqual({ verdict: "fail", notes: "critic 1" });
    expect(await gateway.structured(verdictCall("framer"))).toEqual({ verdict: "pass", notes: "framer 1" });
    expect(await gateway.structured({ ...verdictCall("critic"), attemptId: "attempt-001" })).toEqual({
      verdict: "pass",
      notes: "critic 2",
    });

    const usage = gateway.usage();
    expect(usage.by_role.critic).toMatchObject({ calls: 2, input_tokens: 1000, output_tokens: 100 });
    expect(usage.by_role.framer).toMatchObject({ calls: 1, input_tokens: 0, output_tokens: 0, cost_usd: 0 });
    expect(usage.total.cost_usd).toBeCloseTo((1000 * 0.4 + 100 * 1.6) / 1_000_000, 12);
    expect(usage.by_attempt["attempt-001"]?.calls).toBe(1);
  });

  it("names the cassette, role and call number when a role runs out of answers", async () => {
    const path = cassette({
      version: 1,
      calls: { critic: [{ structured: { verdict: "pass", notes: "" } }] },
    });
    const gateway = createModelGateway({ mode: "replay", cassettePath: path });
    await gateway.structured(verdictCall("critic"));

    const failure = await gateway.structured(verdictCall("critic")).catch((err: unknown) => err);
    expect(failure).toMatchObject({ code: "REPLAY_EXHAUSTED", details: { role: "critic", callNumber: 2 } });
    expect(String(failure)).toContain(`cassette ${path} has no answer for role critic call #2 (it has 1)`);
    await expect(gateway.structured(verdictCall("framer"))).rejects.toThrow(
      "has no answer for role framer call #1 (it has 0)",
    );
  });

  it("scripts the repair round: an invalid answer consumes one entry, the repaired one the next", async () => {
    const path = cassette({
      version: 1,
      calls: {
        critic: [
          { structured: { verdict: "maybe", notes: "x" }, usage: { input_tokens: 10, output_tokens: 1 } },
          {
            structured: { verdict: "fail", notes: "repaired" },
            usage: { input_tokens: 20, output_tokens: 2 },
          },
          { structured: { verdict: "unsure" } },
          { content: "I cannot decide." },
        ],
      },
    });
    const gateway = createModelGateway({ mode: "replay", cassettePath: path });
    expect(await gateway.structured(verdictCall("critic"))).toEqual({ verdict: "fail", notes: "repaired" });
    expect(gateway.usage().by_role.critic).toMatchObject({ calls: 2, input_tokens: 30 });

    const failure = await gateway.structured(verdictCall("critic")).catch((err: unknown) => err);
    expect(failure).toMatchObject({ code: "MODEL_NO_VALID_ANSWER", details: { role: "critic" } });
    expect(String(failure)).toContain(
      "critic: model answer did not match verdict after one repair round: the answer did not call verdict and its content is not a JSON object",
    );
  });

  it("serves raw messages to chat models, with their tool calls", async () => {
    const path = cassette({
      version: 1,
      calls: {
        observer: [
          {
            content: "looking",
            tool_calls: [{ name: "read_file", args: { path: "a.ts" } }],
            usage: { input_tokens: 5, output_tokens: 6 },
          },
          { content: "done" },
        ],
      },
    });
    const gateway = createModelGateway({ mode: "replay", cassettePath: path });
    gateway.setAttempt("attempt-003");
    const model = gateway.chatModel("observer");
    const first = await model.invoke("go");
    expect(first.content).toBe("looking");
    expect(first.tool_calls).toEqual([
      { type: "tool_call", name: "read_file", args: { path: "a.ts" }, id: "call_observer_1_1" },
    ]);
    expect((await model.invoke("more")).content).toBe("done");
    expect(gateway.usage().by_attempt["attempt-003"]).toMatchObject({
      calls: 2,
      input_tokens: 5,
      output_tokens: 6,
    });
  });
});

describe("replay gateway: cassette problems are configuration errors naming the file and the place", () => {
  const cases: { name: string; content: unknown; expected: string }[] = [
    { name: "bad JSON", content: "{ not json", expected: "not valid JSON" },
    { name: "wrong version", content: { version: 2, calls: {} }, expected: "version: expected 1, found 2" },
    { name: "no calls", content: { version: 1 }, expected: "calls: expected an object mapping role names" },
    {
      name: "unknown role",
      content: { version: 1, calls: { reviewer: [] } },
      expected: "calls.reviewer: unknown role (known roles: router, framer",
    },
    {
      name: "role not an array",
      content: { version: 1, calls: { critic: {} } },
      expected: "calls.critic: expected an array",
    },
    {
      name: "entry with neither structured nor content",
      content: { version: 1, calls: { critic: [{ structured: {} }, { answer: 1 }] } },
      expected: 'calls.critic[1]: an entry has exactly one of "structured"',
    },
    {
      name: "entry with a misspelt key",
      content: { version: 1, calls: { critic: [{ structured: {}, usgae: {} }] } },
      expected: `calls.critic[0]: Unrecognized key: "usgae"`,
    },
    {
      name: "tool call without args",
      content: { version: 1, calls: { observer: [{ content: "", tool_calls: [{ name: "grep" }] }] } },
      expected: "calls.observer[0]: tool_calls.0.args:",
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const path = cassette(c.content);
      const make = () => createModelGateway({ mode: "replay", cassettePath: path });
      expect(make).toThrow(expect.objectContaining({ code: "CASSETTE_INVALID" }));
      expect(make).toThrow(`cassette ${path}: `);
      expect(make).toThrow(c.expected);
    });
  }

  it("a missing file", () => {
    const path = join(dir, "nope.json");
    expect(() => createModelGateway({ mode: "replay", cassettePath: path })).toThrow(
      `cassette ${path}: file not found`,
    );
  });

  it("no cassette path at all", () => {
    expect(() => createModelGateway({ mode: "replay" })).toThrow("replay mode needs a cassette path");
  });
});
