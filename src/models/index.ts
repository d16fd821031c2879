export {
  CASSETTE_VERSION,
  type Cassette,
  type CassetteEntry,
  loadCassette,
  parseCassette,
} from "./cassette.js";
export * from "./contract.js";
export {
  createModelGateway,
  DEFAULT_BUDGET_MS,
  DEFAULT_MAX_RETRIES,
  DEFAULT_MODEL,
  DEFAULT_TIMEOUT_MS,
  type ModelGatewayOptions,
} from "./create-gateway.js";
export { type EndpointLimits, LIMIT_ENV, resolveEndpointLimits } from "./endpoint-limits.js";
export { openModelGateway } from "./gateway.js";
export { describeModelError, type EndpointContext } from "./model-errors.js";
export {
  costUsd,
  type ModelPrice,
  PRICES_AS_OF,
  type PriceLookup,
  pricedModels,
  priceFor,
} from "./prices.js";
export { ReplayChatModel } from "./replay-chat-model.js";
