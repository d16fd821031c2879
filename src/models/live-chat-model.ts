import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { ModelProfile } from "@langchain/core/language_models/profile";
import type { BaseMessage } from "@langchain/core/messages";
import type { ChatGenerationChunk, ChatResult } from "@langchain/core/outputs";
import { ChatOpenAI, type ChatOpenAICallOptions, type ChatOpenAIFields } from "@langchain/openai";
import { DEFAULT_BASE_URL, type Endpoint } from "./endpoint.js";
import { endpointFetch } from "./endpoint-fetch.js";
import type { EndpointLimits } from "./endpoint-limits.js";
import { type EndpointContext, toModelCallError } from "./model-errors.js";

// The SDK's own timer must never fire before endpointFetch's budget does.
const SDK_TIMEOUT_SLACK_MS = 10_000;

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
