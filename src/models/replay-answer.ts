import { AIMessage } from "@langchain/core/messages";
import { DevflowError } from "../errors/index.js";
import { type CassetteEntry, isStructuredEntry, type StructuredEntry } from "./cassette.js";
import type { Role } from "./contract.js";
import {
  type BoundCallOptions,
  boundToolNames,
  forcedToolName,
  structuredAnswerToolNames,
  wantsJsonContent,
} from "./tool-binding.js";

export interface EntryOrigin {
  path: string;
  role: Role;
  callNumber: number;
}

/** Turns a cassette entry into the assistant message a live model would have sent for this call. */
export function answerFromEntry(
  entry: CassetteEntry,
  options: BoundCallOptions,
  origin: EntryOrigin,
): AIMessage {
  const usage_metadata = {
    input_tokens: entry.usage?.input_tokens ?? 0,
    output_tokens: entry.usage?.output_tokens ?? 0,
    total_tokens: (entry.usage?.input_tokens ?? 0) + (entry.usage?.output_tokens ?? 0),
  };
  const idPrefix = `call_${origin.role}_${origin.callNumber}`;
  if (!isStructuredEntry(entry)) {
    return new AIMessage({
      content: entry.content,
      tool_calls: (entry.tool_calls ?? []).map((call, i) => ({
        type: "tool_call" as const,
        name: call.name,
        args: call.args,
        id: call.id ?? `${idPrefix}_${i + 1}`,
      })),
      usage_metadata,
    });
  }
  const target = structuredTarget(entry, options, origin);
  if (target === null) return new AIMessage({ content: JSON.stringify(entry.structured), usage_metadata });
  return new AIMessage({
    content: "",
    tool_calls: [{ type: "tool_call", name: target, args: entry.structured, id: idPrefix }],
    usage_metadata,
  });
}

/**
 * Which tool receives a {structured} answer (null: send it as JSON content). In order: the entry's
 * "tool"; the tool the call forces; the single structured-answer tool bound (createAgent's
 * responseFormat tool, whose generated name changes between runs); JSON content when the call asks
 * for a json_schema response_format or binds no tools at all.
 */
function structuredTarget(
  entry: StructuredEntry,
  options: BoundCallOptions,
  origin: EntryOrigin,
): string | null {
  const where = `cassette ${origin.path}: calls.${origin.role}[${origin.callNumber - 1}]`;
  const bound = boundToolNames(options.tools);
  if (entry.tool !== undefined) {
    if (!bound.includes(entry.tool)) {
      throw new DevflowError(
        "CASSETTE_INVALID",
        `${where}: "tool" is ${JSON.stringify(entry.tool)} but the call bound ${describe(bound)}`,
      );
    }
    return entry.tool;
  }
  const forced = forcedToolName(options.tool_choice);
  if (forced !== undefined) return forced;
  const candidates = structuredAnswerToolNames(options.tools);
  if (candidates.length === 1 && candidates[0] !== undefined) return candidates[0];
  if (wantsJsonContent(options.response_format) || bound.length === 0) return null;
  throw new DevflowError(
    "CASSETTE_INVALID",
    candidates.length === 0
      ? `${where}: a "structured" answer but the call bound only the agent's own tools (${describe(bound)}); ` +
          'write this entry as { "content": ..., "tool_calls": [...] } or name the tool with "tool"'
      : `${where}: a "structured" answer fits several bound tools (${describe(candidates)}); add "tool": "<name>"`,
  );
}

function describe(names: string[]): string {
  return names.length === 0 ? "no tools" : names.map((n) => JSON.stringify(n)).join(", ");
}
