import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { type AIMessageChunk, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { z } from "zod";
import { DevflowError, isDevflowError } from "../errors/index.js";
import { jsonObjectInText } from "../util/json-in-text.js";
import { type StructuredCall, structuredOutputError } from "./contract.js";
import { functionTool } from "./function-tool.js";

const MAX_ISSUES = 20;
const MAX_ISSUE_TEXT = 2000;

type Reading<T> = { ok: true; value: T } | { ok: false; issues: string };

/**
 * One structured answer: the call's schema becomes a single forced function tool; the tool-call
 * arguments (or, failing that, JSON in the content) are validated with zod. An invalid answer gets
 * exactly one repair round that shows the model its validation error.
 */
export async function runStructuredCall<S extends z.ZodType>(
  model: BaseChatModel,
  call: StructuredCall<S>,
  onAnswer: (answer: AIMessageChunk) => void,
): Promise<z.infer<S>> {
  if (model.bindTools === undefined) throw new TypeError(`${model._llmType()} cannot bind tools`);
  const bound = model.bindTools([functionTool(call.name, call.description, call.schema)], {
    tool_choice: call.name,
  });
  const first = await bound.invoke(call.messages);
  onAnswer(first);
  const firstReading = readAnswer(first, call);
  if (firstReading.ok) return firstReading.value;

  const repairMessages: BaseMessage[] = [
    ...call.messages,
    first,
    ...repairFeedback(first, call.name, firstReading.issues),
  ];
  const second = await bound.invoke(repairMessages).catch((error: unknown) => {
    throw cassetteEntryMismatch(error, call.name, firstReading.issues) ?? error;
  });
  onAnswer(second);
  const secondReading = readAnswer(second, call);
  if (secondReading.ok) return secondReading.value;
  throw structuredOutputError(
    call.role,
    `${call.role}: model answer did not match ${call.name} after one repair round: ${secondReading.issues}`,
  );
}

/**
 * A replayed answer that does not fit its schema sends the call into its repair round; when the
 * cassette has no repair answer, "no answer for call #2" would hide the real problem. Said instead:
 * which entry (role, call #n), which field and why (issue 11). Null for any other failure.
 */
function cassetteEntryMismatch(error: unknown, schemaName: string, issues: string): DevflowError | null {
  if (!isDevflowError(error, "REPLAY_EXHAUSTED")) return null;
  const { role, callNumber, cassette } = error.details;
  const entry = callNumber - 1;
  return new DevflowError(
    "CASSETTE_INVALID",
    `cassette ${cassette ?? "(replay)"}: calls.${role}[${entry - 1}] (${role} call #${entry}) does not fit ${schemaName}: ${issues}. ` +
      `Fix that entry (docs/cassettes.md shows every role's shape; devflow cassette check <file> checks one), ` +
      `or add the repair answer the run asked for next (${role} call #${callNumber}).`,
    { cause: error },
  );
}

function readAnswer<S extends z.ZodType>(
  answer: AIMessageChunk,
  call: StructuredCall<S>,
): Reading<z.infer<S>> {
  const toolCall = answer.tool_calls?.find((c) => c.name === call.name);
  let candidate: unknown;
  if (toolCall !== undefined) {
    candidate = toolCall.args;
  } else {
    const invalid = answer.invalid_tool_calls?.find((c) => c.name === call.name);
    if (invalid !== undefined) {
      return {
        ok: false,
        issues: `the ${call.name} arguments were not valid JSON (${invalid.error ?? "unparseable"})`,
      };
    }
    candidate = jsonObjectInText(answer.text);
    if (candidate === undefined) {
      return {
        ok: false,
        issues: `the answer did not call ${call.name} and its content is not a JSON object`,
      };
    }
  }
  const parsed = call.schema.safeParse(candidate);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, issues: compactIssues(parsed.error.issues) };
}

function compactIssues(issues: z.ZodError["issues"]): string {
  const lines = issues.slice(0, MAX_ISSUES).map((issue) => {
    const path = issue.path.map(String).join(".");
    return `${path === "" ? "(root)" : path}: ${issue.message}`;
  });
  if (issues.length > MAX_ISSUES) lines.push(`… ${issues.length - MAX_ISSUES} more`);
  const text = lines.join("; ");
  return text.length > MAX_ISSUE_TEXT ? `${text.slice(0, MAX_ISSUE_TEXT)}…` : text;
}

/**
 * The turn that tells the model what was wrong. Every tool call in the assistant turn must be
 * answered by a tool message (OpenAI rejects the conversation otherwise); a text answer gets a
 * user message instead.
 */
function repairFeedback(answer: AIMessageChunk, name: string, issues: string): BaseMessage[] {
  const feedback = `Validation failed: ${issues}. Call ${name} again with arguments that match its schema.`;
  const ids = (answer.tool_calls ?? []).flatMap((c) => (c.id === undefined ? [] : [c.id]));
  const invalidIds = (answer.invalid_tool_calls ?? []).flatMap((c) => (c.id === undefined ? [] : [c.id]));
  const answered = ids.length > 0 ? ids : invalidIds;
  if (answered.length === 0) return [new HumanMessage(feedback)];
  return answered.map((id) => new ToolMessage({ content: feedback, tool_call_id: id }));
}
