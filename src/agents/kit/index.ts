export { askStructured, type StructuredAsk } from "./ask-structured.js";
export { causeChain, findCause, isTransientModelError, ownError } from "./cause-chain.js";
export { MAX_PRIOR_TURNS, renderTurns } from "./render-turns.js";
export {
  type AnswerSpec,
  type ModelRetrySpec,
  runToolAgent,
  type ToolAgentLimits,
  type ToolAgentResult,
  type ToolAgentSpec,
  type ToolAgentStats,
  thrownBy,
} from "./run-tool-agent.js";
