export { causeChain, findCause, unwrapDevflowError } from "./cause-chain.js";
export {
  categoryOf,
  type DetailsByCode,
  type DetailsOf,
  ERROR_CATEGORIES,
  ERROR_CODES,
  type ErrorCategory,
  type ErrorCode,
} from "./codes.js";
export { describeError, messageOf } from "./describe.js";
export { DevflowError, type DevflowErrorOptions, isDevflowError } from "./devflow-error.js";
