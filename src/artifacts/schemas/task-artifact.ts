import { z } from "zod";
import { Revision, Timestamp } from "./common.js";
import { ConversationTurn } from "./conversation.js";
import { ExtraVerifier } from "./extra-verifier.js";

export const TaskType = z.enum(["error_fix", "quick_change", "targeted_improvement"]);

/**
 * Details specific to each task type: one shared base shape, never a second task schema
 * (docs/origins.md#03-roles-and-artifacts).
 */
export const TaskDetails = z.object({
  error_fix: z
    .object({
      reported_error: z.string(),
      error_location_hints: z.array(z.string()),
      logs_or_trace: z.string().nullable(),
    })
    .nullable(),
  quick_change: z
    .object({
      change_summary: z.string(),
      target_surface: z.string(),
    })
    .nullable(),
  targeted_improvement: z
    .object({
      improvement_goal: z.string(),
      measurable_signal: z.string(),
    })
    .nullable(),
});

export const SurfaceHints = z.object({
  files: z.array(z.string()),
  routes: z.array(z.string()),
  components: z.array(z.string()),
  functions: z.array(z.string()),
});

export const ScopeBoundary = z.object({
  statement: z.string().min(1).describe("What is in scope, in one or two sentences"),
  allowed_paths: z
    .array(z.string())
    .describe("Glob patterns (repo-relative) the change may touch; empty means not restricted by path"),
  out_of_scope: z.array(z.string()).describe("Things explicitly not to change"),
});

/** What the Framer model returns; devflow adds the bookkeeping fields of TaskArtifact. */
export const TaskFraming = z.object({
  title: z.string().min(1),
  task_type: TaskType,
  task_details: TaskDetails,
  current_behavior: z.string().min(1),
  desired_behavior: z.string().min(1),
  surface_hints: SurfaceHints,
  facts: z.array(z.string()),
  assumptions: z.array(z.string()),
  blocking_unknowns: z.array(z.string()),
  success_criteria: z.array(z.string().min(1)).min(1),
  scope_boundary: ScopeBoundary,
  recommended_next_step: z.enum(["observe", "investigate_first", "needs_more_context"]),
});
export type TaskFraming = z.infer<typeof TaskFraming>;

export const TaskArtifact = TaskFraming.extend({
  artifact: z.literal("task_artifact"),
  task_id: z.string().min(1),
  revision: Revision,
  request: z.string().min(1),
  prior_turns: z.array(ConversationTurn),
  /** Scripts the requester asked to run as extra verifiers (a ticket's Verification blocks; ADR 0056). */
  extra_verifiers: z.array(ExtraVerifier).optional(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type TaskArtifact = z.infer<typeof TaskArtifact>;
