import type { AIMessage, AIMessageChunk } from "@langchain/core/messages";
import type { CassetteEntry } from "./cassette.js";
import {
  type BoundCallOptions,
  forcedToolName,
  structuredAnswerToolNames,
  wantsJsonContent,
} from "./tool-binding.js";

/**
 * The cassette entry for a live answer. An answer that fills a structured-answer tool (or the JSON
 * content a json_schema response_format asked for) is stored as {structured}, so replay does not
 * depend on tool names langchain generates per run; everything else is stored as the raw message.
 */
export function entryFromAnswer(
  answer: AIMessage | AIMessageChunk,
  options: BoundCallOptions,
): CassetteEntry {
  // langchain leaves a token count out when the endpoint reports 0 (a loopback or local server):
  // stored as 0, since a cassette entry's usage needs both counts to load again.
  const usage =
    answer.usage_metadata === undefined
      ? undefined
      : {
          input_tokens: answer.usage_metadata.input_tokens ?? 0,
          output_tokens: answer.usage_metadata.output_tokens ?? 0,
        };
  const withUsage = <E extends CassetteEntry>(entry: E): E =>
    usage === undefined ? entry : { ...entry, usage };
  const toolCalls = answer.tool_calls ?? [];
  const forced = forcedToolName(options.tool_choice);
  const answerTools = structuredAnswerToolNames(options.tools);
  const only = toolCalls.length === 1 ? toolCalls[0] : undefined;
  if (only !== undefined && (only.name === forced || answerTools.includes(only.name))) {
    // The name only helps replay when it cannot be inferred: several answer tools, none forced.
    const needsName = forced === undefined && answerTools.length > 1;
    return withUsage({ structured: only.args, ...(needsName ? { tool: only.name } : {}) });
  }
  if (toolCalls.length === 0 && wantsJsonContent(options.response_format)) {
    const parsed = parseJsonObject(answer.text);
    if (parsed !== undefined) return withUsage({ structured: parsed });
  }
  return withUsage({
    content: answer.text,
    tool_calls: toolCalls.map((call) => ({
      name: call.name,
      args: call.args,
      ...(call.id === undefined ? {} : { id: call.id }),
    })),
  });
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return { ...value };
  } catch {
    // Not JSON: recorded as a raw message instead.
  }
  return undefined;
}
