import { z } from "zod";
import { Timestamp } from "./common.js";
import { ConversationTurn, HandoffSource } from "./conversation.js";

/** A place in the repository an answer relies on; `line` is 1-based, null when the whole file is meant. */
export const InsightReference = z.object({
  path: z.string().min(1).describe("Repository-relative file path"),
  line: z.number().int().min(1).nullable().describe("1-based line number, or null for the whole file"),
});
export type InsightReference = z.infer<typeof InsightReference>;

/** What the insight agent answers through its `insight_answer` tool. */
export const InsightFindings = z.object({
  answer: z.string().min(1).describe("The explanation in Markdown, citing code as path:line"),
  references: z.array(InsightReference).describe("Every file and line the answer relies on"),
});
export type InsightFindings = z.infer<typeof InsightFindings>;

/** `.devflow/insight/<id>/insight_answer.json`: a read-only investigation and its answer. */
export const InsightAnswer = InsightFindings.extend({
  artifact: z.literal("insight_answer"),
  id: z.string().min(1),
  question: z.string().min(1),
  prior_turns: z.array(ConversationTurn),
  unverified_references: z
    .array(InsightReference.extend({ problem: z.string().min(1) }))
    .describe("References the model gave that do not exist in the repository (kept, never trusted)"),
  head_commit: z.string().nullable().describe("The commit the repository was at when it was read"),
  source_handoff: HandoffSource.nullable(),
  stopped_by: z
    .enum(["model_call_limit", "step_limit", "no_answer"])
    .nullable()
    .describe("Why the investigation ended without the agent's own answer (null: it answered)"),
  model: z.string(),
  tool_calls: z.number().int().min(0),
  created_at: Timestamp,
});
export type InsightAnswer = z.infer<typeof InsightAnswer>;
