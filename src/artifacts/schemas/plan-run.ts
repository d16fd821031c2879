import { z } from "zod";
import { Revision, Timestamp, Usage } from "./common.js";
import { Terminal } from "./iterator-run.js";
import { VerifierEnvelope } from "./verifier-envelope.js";

/**
 * `.devflow/idea/<plan id>/plan_run.json` (ADR 0055): the compose lane's record of one approved
 * plan run, and the truth of what landed. A resumed run skips every task recorded `landed` here
 * (its commit is on the integration branch) and resumes the one recorded `running` through its own
 * iterate task id. Written only by devflow's orchestrator, never by a model.
 */

export const PlanRunState = z.enum([
  /** Recorded, no task started yet. */
  "planned",
  /** Tasks are running one by one. */
  "implementing",
  /** A task's critic or the review judged the plan's assumptions wrong: asking to re-plan the rest. */
  "replanning",
  /** Every task landed; devflow re-runs every seam and the regression suite on the final tree. */
  "verifying",
  /** Verify passed; the critic reviews the whole plan diff against the brief. */
  "reviewing",
  /** Every task landed and Verify and Review passed. */
  "completed",
  /** A task exhausted its attempts or ended without a verified commit: the plan stopped. */
  "gave_up",
  /** A task ended without a verified commit for another reason (blocked, needs context, handed off). */
  "stopped",
  /** Every task landed but Verify or Review did not pass. */
  "unverified",
]);
export type PlanRunState = z.infer<typeof PlanRunState>;

export const PlanTaskStatus = z.enum(["pending", "running", "landed", "failed", "skipped"]);
export type PlanTaskStatus = z.infer<typeof PlanTaskStatus>;

export const PlanTaskRun = z.object({
  plan_task_id: z
    .string()
    .regex(/^T\d+$/)
    .describe('The brief\'s task id: "T1", "T2", …'),
  title: z.string().min(1),
  request: z.string().min(1),
  status: PlanTaskStatus,
  iterate_task_id: z
    .string()
    .min(1)
    .describe("Deterministic (plan id + task id), so the iterate lane's own --resume continues it"),
  iterate_task_dir: z.string().describe("The iterate task's artifact dir, relative to the repository root"),
  base_commit: z
    .string()
    .nullable()
    .describe("The commit the task started from: the previous task's verified commit (stacked)"),
  commit: z.string().nullable().describe("The task's verified commit, now on the integration branch"),
  verdict: Terminal.shape.verdict.nullable().describe("The iterate lane's terminal verdict"),
  attempts: z.number().int().min(0),
  reason: z.string().nullable().describe("Why the task ended as it did (the iterate terminal reason)"),
  replan: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe("The re-plan that wrote this task (1, 2, …); absent for a task of the approved plan"),
});
export type PlanTaskRun = z.infer<typeof PlanTaskRun>;

/** One verifier devflow ran on the final tree: a task's seam or the regression suite. */
export const PlanCheck = z.object({
  kind: z.enum(["seam", "regression"]),
  /** The plan task whose seam this is; null for the regression suite. */
  plan_task_id: z.string().nullable(),
  /** The verifier's own typed envelope (its log is under the plan dir's verify/). */
  envelope: VerifierEnvelope,
});
export type PlanCheck = z.infer<typeof PlanCheck>;

/** Verify: every task's seam and the regression suite, run by devflow on the final tree. */
export const PlanVerify = z.object({
  tree_commit: z.string(),
  overall_result: z.enum(["pass", "fail"]),
  checks: z.array(PlanCheck),
  summary: z.string(),
  at: Timestamp,
});
export type PlanVerify = z.infer<typeof PlanVerify>;

/** Review: the critic over the whole plan diff against the brief's goals and every task's criteria. */
export const PlanReview = z.object({
  overall_result: z.enum(["pass", "fail"]),
  criteria: z.array(
    z.object({ criterion: z.string(), verdict: z.enum(["met", "unmet", "unclear"]), reason: z.string() }),
  ),
  blockers: z.array(z.string()),
  plan_invalid: z.boolean(),
  summary: z.string(),
  /** The reviewed diff (base..final commit), relative to the plan dir. */
  diff: z.string(),
  at: Timestamp,
});
export type PlanReview = z.infer<typeof PlanReview>;

/**
 * One PLAN_INVALID: who judged the plan's assumptions wrong, whether the user approved re-planning,
 * and what the re-plan replaced. Landed tasks are never replaced: a re-plan revises only the tasks
 * after the last landed one (or, after the review, adds tasks on top of them).
 */
export const PlanReplan = z.object({
  at: Timestamp,
  /** `task`: a task's critic judged it plan_invalid; `review`: the review of the whole plan did. */
  source: z.enum(["task", "review"]),
  /** The task whose critic judged the plan invalid; null for the review. */
  plan_task_id: z.string().nullable(),
  reason: z.string(),
  approved: z.boolean(),
  /** The idea_brief revision the re-plan wrote (the approved plan is 1); null when declined. */
  brief_revision: z.number().int().min(1).nullable(),
  /**
   * The user edited the revised plan at the approval prompt before running it (ADR 0060 §5); the
   * model's proposal is kept as `history/idea_brief.r<brief_revision>.proposed.json`.
   */
  edited: z.boolean().optional(),
  /** The tasks the re-plan dropped (not landed), as they were recorded. */
  replaced: z.array(
    z.object({ plan_task_id: z.string(), iterate_task_id: z.string(), status: PlanTaskStatus }),
  ),
  /** The plan task ids the re-plan wrote. */
  added: z.array(z.string()),
});
export type PlanReplan = z.infer<typeof PlanReplan>;

export const PlanRun = z.object({
  artifact: z.literal("plan_run"),
  plan_id: z.string().min(1),
  revision: Revision,
  request: z.string().min(1),
  state: PlanRunState,
  history: z.array(z.object({ state: PlanRunState, at: Timestamp, reason: z.string() })),
  /** `devflow/plan-<id>`: holds exactly the tasks recorded landed, in order. */
  integration_branch: z.string().min(1),
  /** The commit the plan started from (the repository's HEAD then). */
  base_commit: z.string().min(1),
  limits: z.object({
    max_implement_attempts: z.number().int().min(1),
    max_replans: z.number().int().min(0),
    min_tasks_for_compose: z.number().int().min(1),
  }),
  tasks: z.array(PlanTaskRun).min(1),
  verify: PlanVerify.nullable(),
  review: PlanReview.nullable(),
  replans: z.array(PlanReplan),
  usage: Usage,
  gave_up: z.boolean(),
  /** How the plan ended; null while it runs. */
  terminal: z.object({ verdict: PlanRunState, reason: z.string() }).nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type PlanRun = z.infer<typeof PlanRun>;
