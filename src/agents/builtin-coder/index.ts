export {
  type BuiltinCoderAgentInput,
  type BuiltinCoderAgentRun,
  runBuiltinCoderAgent,
} from "./builtin-coder-agent.js";
export { type BuiltinLimits, DEFAULT_BUILTIN_LIMITS } from "./limits.js";
export type { CoderRunLog, LoggedAnswer } from "./run-log.js";
