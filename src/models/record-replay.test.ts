import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgent, HumanMessage, tool } from "langchain";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  type OpenAIServer,
  startOpenAIServer,
  textAnswer,
  toolCallAnswer,
} from "../../test/support/openai-server.js";
import { createModelGateway } from "./create-gateway.js";

const API_KEY = "sk-proj-recordsecret0123456789";
const Plan = z.object({ steps: z.array(z.string()).min(1) });
const planCall = {
  role: "framer" as const,
  name: "plan",
  description: "Plan the change.",
  schema: Plan,
  messages: [new HumanMessage("plan it")],
};

let dir: string;
let server: OpenAIServer | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "devflow-record-"));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

function recorder(url: string, cassettePath: string) {
  return createModelGateway({
    mode: "record",
    cassettePath,
    env: { OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: url },
    maxRetries: 0,
  });
}

const readCassette = (path: string): unknown => JSON.parse(readFileSync(path, "utf8"));

describe("record, then replay the written cassette", () => {
  it("structured calls (with a repair round) replay to the same answers and usage", async () => {
    server = await startOpenAIServer([
      toolCallAnswer("plan", { steps: [] }, { prompt_tokens: 50, completion_tokens: 5 }),
      toolCallAnswer("plan", { steps: ["edit a.ts"] }, { prompt_tokens: 70, completion_tokens: 8 }),
      toolCallAnswer("plan", { steps: ["run tests"] }, { prompt_tokens: 40, completion_tokens: 4 }),
    ]);
    const path = join(dir, "nested", "plan.json");
    const live = recorder(server.url, path);

    const first = await live.structured(planCall);
    // Written after every call, not only at flush.
    expect(readCassette(path)).toMatchObject({ version: 1, calls: { framer: [{}, {}] } });
    const second = await live.structured(planCall);
    await live.flush();

    expect(readCassette(path)).toEqual({
      version: 1,
      calls: {
        framer: [
          { structured: { steps: [] }, usage: { input_tokens: 50, output_tokens: 5 } },
          { structured: { steps: ["edit a.ts"] }, usage: { input_tokens: 70, output_tokens: 8 } },
          { structured: { steps: ["run tests"] }, usage: { input_tokens: 40, output_tokens: 4 } },
        ],
      },
    });

    const replay = createModelGateway({ mode: "replay", cassettePath: path });
    expect(await replay.structured(planCall)).toEqual(first);
    expect(await replay.structured(planCall)).toEqual(second);
    expect(replay.usage().total).toEqual(live.usage().total);
  });

  it("a createAgent run records raw tool calls and the structured answer, and replays name-independently", async () => {
    const Observation = z.object({ status: z.enum(["confirmed", "not_confirmed"]), summary: z.string() });
    server = await startOpenAIServer([
      toolCallAnswer("read_file", { path: "src/a.ts" }, { prompt_tokens: 300, completion_tokens: 20 }),
      toolCallAnswer(
        "observation",
        { status: "confirmed", summary: "boom" },
        { prompt_tokens: 400, completion_tokens: 30 },
      ),
    ]);
    const path = join(dir, "observer.json");
    const reads: string[] = [];
    const readFile = tool(
      async ({ path: p }: { path: string }) => {
        reads.push(p);
        return "throw new Error('boom')";
      },
      { name: "read_file", description: "Read a file.", schema: z.object({ path: z.string() }) },
    );

    const live = recorder(server.url, path);
    const recorded = await createAgent({
      model: live.chatModel("observer"),
      tools: [readFile],
      responseFormat: Observation.meta({ title: "observation" }),
    }).invoke({ messages: [new HumanMessage("does it throw?")] });
    expect(recorded.structuredResponse).toEqual({ status: "confirmed", summary: "boom" });
    // Function calling (not a strict json_schema response_format) in live mode too.
    const final = server.requests[1]?.body;
    expect(final?.response_format).toBeUndefined();
    expect(final?.tool_choice).toBe("required");
    expect(final?.tools?.map((t) => t.function.name).sort()).toEqual(["observation", "read_file"]);
    // Booked once per call, not once by the wrapper and again by the live model inside it.
    expect(live.usage().by_role.observer).toMatchObject({ calls: 2, input_tokens: 700, output_tokens: 50 });

    expect(readCassette(path)).toEqual({
      version: 1,
      calls: {
        observer: [
          {
            content: "",
            tool_calls: [{ name: "read_file", args: { path: "src/a.ts" }, id: "call_1_1" }],
            usage: { input_tokens: 300, output_tokens: 20 },
          },
          {
            structured: { status: "confirmed", summary: "boom" },
            usage: { input_tokens: 400, output_tokens: 30 },
          },
        ],
      },
    });

    // Replayed with an untitled schema: langchain names its tool "extract-<n>" this time.
    const replay = createModelGateway({ mode: "replay", cassettePath: path });
    const replayed = await createAgent({
      model: replay.chatModel("observer"),
      tools: [readFile],
      responseFormat: Observation,
    }).invoke({ messages: [new HumanMessage("does it throw?")] });
    expect(replayed.structuredResponse).toEqual(recorded.structuredResponse);
    expect(reads).toEqual(["src/a.ts", "src/a.ts"]);
    expect(replay.usage().total).toEqual(live.usage().total);
  });

  it("secrets in answers never reach the cassette", async () => {
    server = await startOpenAIServer([
      textAnswer(
        `your key is ${API_KEY} and the token ghp_abcdefghijklmnopqrstuvwxyz0123 works, deploy with plain-deploy-value-42`,
      ),
    ]);
    const path = join(dir, "secrets.json");
    const live = createModelGateway({
      mode: "record",
      cassettePath: path,
      env: { OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: server.url, DEPLOY_TOKEN: "plain-deploy-value-42" },
      maxRetries: 0,
    });
    const answer = await live.chatModel("insight").invoke("what is my key?");
    expect(answer.content).toContain(API_KEY);

    const text = readFileSync(path, "utf8");
    expect(text).not.toContain(API_KEY);
    expect(text).not.toContain("ghp_abcdefghijklmnopqrstuvwxyz0123");
    expect(text).not.toContain("plain-deploy-value-42");
    expect(readCassette(path)).toMatchObject({
      calls: {
        insight: [
          // The configured key is registered (ADR 0030), so it is named; the others are not known by name here.
          {
            content:
              "your key is [redacted:OPENAI_API_KEY] and the token [REDACTED] works, deploy with [REDACTED]",
          },
        ],
      },
    });
  });
});
