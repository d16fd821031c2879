import { isOpenAITool } from "@langchain/core/language_models/base";
import type { BindToolsInput, ToolChoice } from "@langchain/core/language_models/chat_models";
import { isLangChainTool } from "@langchain/core/tools";

/** The options a tool-binding caller (structured(), createAgent) leaves on a chat-model call. */
export interface BoundCallOptions {
  tools?: BindToolsInput[] | undefined;
  tool_choice?: ToolChoice | undefined;
  response_format?: unknown;
}

const CHOICE_KEYWORDS = new Set(["auto", "any", "required", "none"]);

/** The single tool a call forces (tool_choice "<name>" or {type:"function", function:{name}}), if any. */
export function forcedToolName(choice: ToolChoice | undefined): string | undefined {
  if (typeof choice === "string") return CHOICE_KEYWORDS.has(choice) ? undefined : choice;
  if (typeof choice === "object" && choice !== null) {
    const fn: unknown = choice.function;
    if (typeof fn === "object" && fn !== null && "name" in fn && typeof fn.name === "string") return fn.name;
  }
  return undefined;
}

export function boundToolNames(tools: BindToolsInput[] | undefined): string[] {
  return (tools ?? []).flatMap((tool) => {
    const name = toolName(tool);
    return name === undefined ? [] : [name];
  });
}

/**
 * Tools that collect a structured answer rather than act: createAgent's responseFormat tool and
 * structured()'s tool are plain OpenAI function definitions, while an agent's own tools are
 * langchain tools (tool(), StructuredTool).
 */
export function structuredAnswerToolNames(tools: BindToolsInput[] | undefined): string[] {
  return (tools ?? []).flatMap((tool) =>
    isOpenAITool(tool) && !isLangChainTool(tool) ? [tool.function.name] : [],
  );
}

/** createAgent's provider strategy asks for the answer as JSON content (OpenAI response_format). */
export function wantsJsonContent(responseFormat: unknown): boolean {
  return (
    typeof responseFormat === "object" &&
    responseFormat !== null &&
    "type" in responseFormat &&
    responseFormat.type === "json_schema"
  );
}

function toolName(tool: BindToolsInput): string | undefined {
  if (isOpenAITool(tool)) return tool.function.name;
  if (typeof tool === "object" && tool !== null && "name" in tool && typeof tool.name === "string")
    return tool.name;
  return undefined;
}
