export { findCause } from "../../errors/index.js";
export { askStructured, type StructuredAsk } from "./ask-structured.js";
export { renderTurns } from "./render-turns.js";
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
