import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { ModelProfile } from "@langchain/core/language_models/profile";
import type { BaseMessage } from "@langchain/core/messages";
import type { ChatGenerationChunk, ChatResult } from "@langchain/core/outputs";
import { ChatOpenAI, type ChatOpenAICallOptions, type ChatOpenAIFields } from "@langchain/openai";
import { DevflowError } from "../errors/index.js";
import { registerSecret } from "../util/secrets.js";
import { endpointFetch } from "./endpoint-fetch.js";
import type { EndpointLimits } from "./endpoint-limits.js";
import { type EndpointContext, toModelCallError } from "./model-errors.js";

export const DEFAULT_BASE_URL = "https://api.openai.com/v1";
// The SDK's own timer must never fire before endpointFetch's budget does.
const SDK_TIMEOUT_SLACK_MS = 10_000;

// Local OpenAI-compatible servers (llama.cpp, vLLM, Ollama) ignore the key but the SDK requires one.
const PLACEHOLDER_API_KEY = "devflow-local-no-key";

export interface Endpoint {
  apiKey: string;
  /** undefined: the SDK default (api.openai.com). */
  baseURL: string | undefined;
  /** The real key, when one was given (so cassettes and messages can redact it). */
  secret: string | undefined;
}

/** Reads OPENAI_API_KEY / OPENAI_BASE_URL; neither set is a configuration error, before any work. */
export function resolveEndpoint(env: NodeJS.ProcessEnv): Endpoint {
  const apiKey = env.OPENAI_API_KEY?.trim() || undefined;
  const baseURL = env.OPENAI_BASE_URL?.trim() || undefined;
  if (apiKey === undefined && baseURL === undefined) {
    throw new DevflowError(
      "MODEL_CONFIG",
      "set OPENAI_API_KEY (or OPENAI_BASE_URL for a local OpenAI-compatible endpoint)",
    );
  }
  // The configured key is a secret wherever it came from (an `env` other than process.env too).
  registerSecret("OPENAI_API_KEY", apiKey);
  return { apiKey: apiKey ?? PLACEHOLDER_API_KEY, baseURL, secret: apiKey };
}

export interface LiveModelOptions {
  endpoint: Endpoint;
  model: string;
  limits: EndpointLimits;
  callbacks?: ChatOpenAIFields["callbacks"];
}

/**
 * ChatOpenAI whose failures say which endpoint failed and what to check; every request goes through
 * `endpointFetch` (redaction, timeouts, budget, retries, protocol checks). `streaming` is never set:
 * with it, invoke() estimates tokens through a tokenizer download that hangs offline.
 */
export class EndpointChatOpenAI extends ChatOpenAI {
  private readonly endpointContext: EndpointContext;

  constructor(private readonly liveOptions: LiveModelOptions) {
    super({
      model: liveOptions.model,
      apiKey: liveOptions.endpoint.apiKey,
      // Retries, timeouts and the budget are endpointFetch's: the SDK would retry 404s' neighbours,
      // ignore the budget and report a stall as "Request timed out" with no limit to raise.
      maxRetries: 0,
      timeout: liveOptions.limits.budgetMs + SDK_TIMEOUT_SLACK_MS,
      ...(liveOptions.callbacks === undefined ? {} : { callbacks: liveOptions.callbacks }),
      configuration: {
        fetch: endpointFetch(liveOptions.limits),
        ...(liveOptions.endpoint.baseURL === undefined ? {} : { baseURL: liveOptions.endpoint.baseURL }),
      },
    });
    this.endpointContext = {
      baseURL: liveOptions.endpoint.baseURL ?? DEFAULT_BASE_URL,
      model: liveOptions.model,
    };
  }

  /**
   * Claims no native structured output, so createAgent's responseFormat uses function calling
   * (toolStrategy) as structured() does, in live, record and replay alike. The native path sends a
   * strict json_schema, which OpenAI rejects for zod schemas with optional fields.
   */
  override get profile(): ModelProfile {
    return { ...super.profile, structuredOutput: false };
  }

  // ChatOpenAI.withConfig (used by bindTools) builds a plain ChatOpenAI, which would drop the error mapping.
  override withConfig(config: Partial<ChatOpenAICallOptions>): EndpointChatOpenAI {
    const bound = new EndpointChatOpenAI(this.liveOptions);
    bound.defaultOptions = { ...this.defaultOptions, ...config };
    return bound;
  }

  override async _generate(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    try {
      return await super._generate(messages, options, runManager);
    } catch (err) {
      throw toModelCallError(err, this.endpointContext);
    }
  }

  // Runs that stream tokens (graph streamMode "messages", streamEvents) take these paths instead.
  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    try {
      yield* super._streamResponseChunks(messages, options, runManager);
    } catch (err) {
      throw toModelCallError(err, this.endpointContext);
    }
  }

  override async *_streamChatModelEvents(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): ReturnType<ChatOpenAI["_streamChatModelEvents"]> {
    try {
      yield* super._streamChatModelEvents(messages, options, runManager);
    } catch (err) {
      throw toModelCallError(err, this.endpointContext);
    }
  }
}
