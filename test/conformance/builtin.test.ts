import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type BuiltinLimits, createBuiltinCoder } from "../../src/coders/builtin/index.js";
import type { CassetteEntry } from "../../src/models/cassette.js";
import { createModelGateway } from "../../src/models/index.js";
import {
  errorAnswer,
  type ScriptedResponse,
  startOpenAIServer,
  textAnswer,
} from "../support/openai-server.js";
import { coderConformanceSpec, type InProcessCoderInitializer, type ScriptedAnswer } from "./spec/index.js";

/** Fast retries, so the rate-limit case does not wait on real backoff. */
const LIMITS: Partial<BuiltinLimits> = { modelRetries: 1, modelRetryDelayMs: 1 };

function cassetteEntry(answer: ScriptedAnswer): CassetteEntry {
  if ("httpStatus" in answer) throw new Error("a replay cassette cannot answer with an HTTP error");
  return {
    content: answer.content ?? "",
    ...(answer.toolCalls === undefined ? {} : { tool_calls: answer.toolCalls }),
    ...(answer.usage === undefined ? {} : { usage: answer.usage }),
  };
}

function serverAnswer(answer: ScriptedAnswer): ScriptedResponse {
  if ("httpStatus" in answer) return errorAnswer(answer.httpStatus, answer.message);
  const usage =
    answer.usage === undefined
      ? undefined
      : { prompt_tokens: answer.usage.input_tokens, completion_tokens: answer.usage.output_tokens };
  if (answer.toolCalls === undefined) return textAnswer(answer.content ?? "", usage);
  return {
    toolCalls: answer.toolCalls,
    ...(answer.content === undefined ? {} : { content: answer.content }),
    ...(usage === undefined ? {} : { usage }),
  };
}

const replayDriver: InProcessCoderInitializer = {
  kind: "in-process",
  name: "builtin over a replay cassette",
  httpErrors: false,
  async start(script, world, options) {
    const cassettePath = join(world.root, "cassette.json");
    writeFileSync(cassettePath, JSON.stringify({ version: 1, calls: { coder: script.map(cassetteEntry) } }));
    const models = createModelGateway({ mode: "replay", cassettePath });
    return {
      backend: createBuiltinCoder({ models, limits: { ...LIMITS, ...options } }),
      close: async () => {},
    };
  },
};

const openAIServerDriver: InProcessCoderInitializer = {
  kind: "in-process",
  name: "builtin over ChatOpenAI and an OpenAI-compatible server",
  httpErrors: true,
  async start(script, _world, options) {
    const server = await startOpenAIServer(script.map(serverAnswer));
    const models = createModelGateway({
      mode: "live",
      env: { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test-conformance0123456789abcdef" },
      maxRetries: 0,
    });
    return {
      backend: createBuiltinCoder({ models, limits: { ...LIMITS, ...options } }),
      sentToModel: () => JSON.stringify(server.requests.map((request) => request.body)),
      close: () => server.close(),
    };
  },
};

coderConformanceSpec(replayDriver);
coderConformanceSpec(openAIServerDriver);
