import { z } from "zod";
import { Revision, Timestamp } from "./common.js";
import { InsightReference } from "./insight-answer.js";

/**
 * The answer (or the audit's findings) of a read-only daemon ticket, `data/tickets/<id>/
 * ticket_answer.json` in the data root (ADR 0057): parked there for review, never a branch and
 * never a file in the user's repository. Revisioned: a ticket run again after `devflow retry` gets a
 * new revision, the old one stays in history/.
 */
export const TicketAnswer = z.strictObject({
  revision: Revision,
  id: z.string().min(1).describe("the ticket id"),
  kind: z.enum(["audit", "investigate", "question"]),
  status: z
    .enum(["answered", "unanswered"])
    .describe("unanswered: the insight agent stopped without its own answer (see stopped_by)"),
  question: z.string().min(1).describe("what the insight agent was asked (from the ticket)"),
  answer: z.string().min(1).describe("the answer or the findings, in Markdown, citing code as path:line"),
  references: z.array(InsightReference).describe("the answer's references that exist in the repository"),
  unverified_references: z
    .array(InsightReference.extend({ problem: z.string().min(1) }))
    .describe("references the model gave that do not exist in the repository (kept, never trusted)"),
  stopped_by: z.enum(["model_call_limit", "step_limit", "no_answer"]).nullable(),
  repo: z
    .string()
    .nullable()
    .describe(
      "the repository read: its top level, or the git URL it was cloned from (credentials redacted); null for a question",
    ),
  head_commit: z.string().nullable().describe("the commit the repository was at when it was read"),
  model: z.string(),
  tool_calls: z.number().int().min(0),
  created_at: Timestamp,
});
export type TicketAnswer = z.infer<typeof TicketAnswer>;
