import { z } from "zod";
import { ERROR_CATEGORIES } from "../../errors/index.js";
import { Usage } from "./common.js";
import { DevflowEvent } from "./event.js";
import { Terminal } from "./iterator-run.js";
import { PlanRunState, PlanTaskRun } from "./plan-run.js";

/**
 * The stdout protocol of `--json` (iterate, demo, route, chat, plan): zero or more `event` lines (chat:
 * its own event objects, src/chat/output.ts), then exactly one `result` line, on success and on failure alike (ADR 0046). Every key is snake_case, like the
 * artifacts. Both are closed objects: a field added to the CLI's output must be added here first.
 */

/** One line per graph node start/end: an events.jsonl record plus `"type": "event"`. */
export const EventLine = z.strictObject({ type: z.literal("event"), ...DevflowEvent.shape });
export type EventLine = z.infer<typeof EventLine>;

/** Why a run failed before it reached a verdict (exit 1 or 2): the DevflowError's code and category. */
export const ResultError = z.strictObject({
  code: z
    .string()
    .min(1)
    .describe("a DevflowError code (src/errors/codes.ts), or USAGE for a bad command line"),
  category: z.enum(ERROR_CATEGORIES),
  message: z.string(),
});
export type ResultError = z.infer<typeof ResultError>;

export const UsageTotals = z.strictObject({
  total: Usage,
  by_role: z.record(z.string(), Usage),
  by_attempt: z.record(z.string(), Usage),
  priced: z.boolean(),
  unpriced_models: z.array(z.string()),
  unknown_cost_calls: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe("calls whose cost is unknown (unpriced model, coder without a cost); not counted as $0"),
});

/** `devflow route --json`: the router's decision. */
export const RouteDecisionLine = z.strictObject({
  route: z.enum(["idea", "insight", "iterate", "neither"]),
  rationale: z.string(),
  confidence: z.number(),
});

/**
 * `devflow plan --json` (ADR 0060): what became of the plan. `ran_as` says how it ran: `compose`
 * (task by task onto the integration branch; the fields come from plan_run.json), `iterate` (fewer
 * than MinTasksForCompose tasks: one iterate request, whose own fields are on the result line too)
 * or `not_run` (rejected at the prompt).
 */
export const PlanResultLine = z.strictObject({
  plan_id: z.string().min(1),
  ran_as: z.enum(["compose", "iterate", "not_run"]),
  brief: z.string().describe("absolute path of .devflow/idea/<plan_id>/idea_brief.json"),
  record: z
    .string()
    .nullable()
    .describe("absolute path of plan_run.json (compose); null when the plan did not run as compose"),
  state: PlanRunState.nullable().describe("plan_run.json's state (compose); null otherwise"),
  gave_up: z.boolean(),
  reason: z.string().nullable().describe("how the plan ended (plan_run.json's terminal reason)"),
  integration_branch: z.string().nullable(),
  tasks: z
    .array(
      PlanTaskRun.pick({
        plan_task_id: true,
        title: true,
        status: true,
        commit: true,
        verdict: true,
        attempts: true,
        reason: true,
      }).strict(),
    )
    .describe("compose: every task as plan_run.json records it; empty otherwise"),
  verify: z.enum(["pass", "fail"]).nullable().describe("Verify's overall result; null when it did not run"),
  review: z.enum(["pass", "fail"]).nullable().describe("Review's overall result; null when it did not run"),
  replans: z.number().int().min(0).describe("approved re-plans"),
  usage: Usage.nullable().describe("compose: the plan's summed usage; iterate: see the result's usage"),
});
export type PlanResultLine = z.infer<typeof PlanResultLine>;

/**
 * The last line of every `--json` run. `error` is null exactly when the command reached its own
 * outcome (a verdict, a decision); the iterate fields are present when a lane ran to a verdict.
 */
export const ResultLine = z.strictObject({
  type: z.literal("result"),
  command: z.string().min(1).describe("the devflow command that ran: iterate, demo, route, …"),
  exit_code: z.number().int().min(0).describe("the process exit code (src/cli/exit-codes.ts)"),
  error: ResultError.nullable(),
  task_id: z.string().optional(),
  terminal: Terminal.optional(),
  artifact_dir: z.string().optional().describe("absolute path of .devflow/iterate/<task_id>"),
  worktree: z.string().optional(),
  branch: z.string().optional(),
  attempts: z.number().int().min(0).optional(),
  usage: UsageTotals.optional(),
  questions: z
    .array(z.string())
    .optional()
    .describe("a task paused with questions nothing could ask (exit 3): answer them with --resume"),
  decision: RouteDecisionLine.optional(),
  thread_id: z
    .string()
    .optional()
    .describe("devflow chat: the thread this process talked in (--thread continues it)"),
  failed_turns: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe("devflow chat: messages whose turn failed (exit 1 when any did)"),
  take_result: z
    .strictObject({ merge: z.string(), review: z.string() })
    .nullable()
    .optional()
    .describe("after completed: the git commands that take the result (ADR 0045); null otherwise"),
  plan: PlanResultLine.optional().describe("devflow plan: what became of the plan (ADR 0060)"),
  worktree_kept: z
    .boolean()
    .optional()
    .describe("whether the coder's checkout is still the task's (--keep-worktree); see worktree_end"),
  worktree_end: z
    .enum(["kept", "kept_idle", "removed"])
    .optional()
    .describe(
      "what became of the coder's checkout: kept (the task's), kept_idle (moved aside for the next task, ADR 0050) or removed",
    ),
  worktree_idle_path: z
    .string()
    .optional()
    .describe("worktree_end kept_idle: where the checkout waits for the next task"),
  resume_command: z
    .string()
    .optional()
    .describe("a run stopped by a signal (exit 130/143): the command line that continues it"),
});
export type ResultLine = z.infer<typeof ResultLine>;
