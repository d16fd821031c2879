import type { ModelGateway } from "./contract.js";
import { buildModelGateway, type CassetteConsumption, type ModelGatewayOptions } from "./gateway.js";
import { EndpointChatOpenAI } from "./live-chat-model.js";

export { DEFAULT_MODEL } from "./default-model.js";
export { DEFAULT_BUDGET_MS, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS } from "./endpoint-limits.js";
export { type CassetteConsumption, type ModelGatewayOptions, openModelGateway } from "./gateway.js";

/**
 * The model gateway for a run, synchronously: this module loads the live model (@langchain/openai)
 * whatever the mode. A command that may only replay uses `openModelGateway` (./gateway.ts), which
 * loads it for live and record mode only. Configuration problems (no key or endpoint, missing or
 * malformed cassette) throw a MODEL_CONFIG DevflowError here, before any work starts.
 */
export function createModelGateway(opts: ModelGatewayOptions): ModelGateway & CassetteConsumption {
  return buildModelGateway(opts, EndpointChatOpenAI);
}
