import { z } from "zod";
import { Timestamp } from "./common.js";
import { ConversationTurn, HandoffSource } from "./conversation.js";
import { TaskType } from "./task-artifact.js";

/**
 * One proposed task. The bounds keep it iterate-lane sized: one of the lane's task types, a
 * self-contained request of a paragraph, at most five observable success criteria.
 */
export const IdeaTask = z.object({
  id: z
    .string()
    .regex(/^T\d+$/)
    .describe('"T1", "T2", … in execution order'),
  title: z.string().min(1).max(100),
  request: z
    .string()
    .min(1)
    .max(800)
    .describe(
      "A self-contained request for the iterate lane: one bounded change against an existing surface",
    ),
  task_type: TaskType,
  surface_hints: z.array(z.string()).describe("Files, routes, components or functions it touches"),
  success_criteria: z.array(z.string().min(1)).min(1).max(5),
  depends_on: z.array(z.string()).describe("Ids of earlier tasks this one needs"),
});
export type IdeaTask = z.infer<typeof IdeaTask>;

/** What the idea model answers through `idea_brief`. */
export const IdeaPlan = z.object({
  title: z.string().min(1).max(120),
  problem: z.string().min(1),
  goals: z.array(z.string().min(1)).min(1),
  tasks: z.array(IdeaTask).min(1).max(12),
  open_questions: z.array(z.string()),
  risks: z.array(z.string()),
});
export type IdeaPlan = z.infer<typeof IdeaPlan>;

/** `.devflow/idea/<id>/idea_brief.json`: a planning brief whose tasks each fit the iterate lane. */
export const IdeaBrief = IdeaPlan.extend({
  artifact: z.literal("idea_brief"),
  id: z.string().min(1),
  request: z.string().min(1),
  prior_turns: z.array(ConversationTurn),
  source_handoff: HandoffSource.nullable(),
  model: z.string(),
  created_at: Timestamp,
});
export type IdeaBrief = z.infer<typeof IdeaBrief>;
