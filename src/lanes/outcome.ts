import { z } from "zod";
import { IdeaBrief, PlanRun, Terminal } from "../artifacts/schemas/index.js";
import type { UsageSnapshot } from "../models/contract.js";

/**
 * What every lane runner returns (ADR 0011). A lane either finished (iterate: with its terminal
 * verdict; insight/idea: with their record), paused because it needs answers (iterate), or handed
 * the request to another lane (iterate's promotion/reroute). Errors are thrown, so the CLI keeps
 * the error's exit code; a driver that records outcomes (the chat) turns a thrown error into a
 * `failed` outcome with `failedOutcome`. The CLI and the chat drive lanes the same way:
 * needs_answers → ask → resume (`answerLane` for a driver that can ask at once).
 */

/** What `devflow iterate --json` prints as its result, and what the iterate lane finished with. */
export const IterateResult = z.object({
  taskId: z.string(),
  terminal: Terminal,
  /** Absolute path of the task dir (`.devflow/iterate/<task id>`). */
  artifactDir: z.string(),
  worktree: z.string(),
  branch: z.string(),
  attempts: z.number().int().nonnegative(),
  usage: z.custom<UsageSnapshot>((v) => typeof v === "object" && v !== null && "total" in v),
});
export type IterateResult = z.infer<typeof IterateResult>;

export const InsightResult = z.object({
  id: z.string(),
  answer: z.string(),
  /** Verified references only (the file exists in the repo and the line is within it). */
  references: z.array(z.object({ path: z.string(), line: z.number().int().nullable() })),
  /** Absolute path of insight_answer.json. */
  artifactPath: z.string(),
});
export type InsightResult = z.infer<typeof InsightResult>;

export const IdeaResult = z.object({ id: z.string(), brief: IdeaBrief, artifactPath: z.string() });
export type IdeaResult = z.infer<typeof IdeaResult>;

/** What the compose lane finished with (ADR 0055): the plan's run record, the truth of what landed. */
export const ComposeResult = z.object({
  planId: z.string(),
  run: PlanRun,
  /** Absolute path of plan_run.json. */
  artifactPath: z.string(),
  /** The integration branch `devflow/plan-<id>`: exactly the tasks recorded landed. */
  branch: z.string(),
});
export type ComposeResult = z.infer<typeof ComposeResult>;

const finished = <L extends string, R extends z.ZodType>(lane: L, result: R) =>
  z.object({ kind: z.literal("finished"), lane: z.literal(lane), result });

export const IterateFinished = finished("iterate", IterateResult);
export const InsightFinished = finished("insight", InsightResult);
export const IdeaFinished = finished("idea", IdeaResult);
/** The compose lane's outcome: the same `finished` shape; not in LaneOutcome yet because the chat does not run plans. */
export const ComposeFinished = finished("compose", ComposeResult);

/** The iterate lane paused at an interrupt: answer the questions and resume the same task. */
export const NeedsAnswers = z.object({
  kind: z.literal("needs_answers"),
  lane: z.literal("iterate"),
  task_id: z.string(),
  /** What is asked: missing context before coding, or approval to re-plan after plan_invalid. */
  asks: z.enum(["needs_more_context", "replan"]),
  questions: z.array(z.string()).min(1),
});
export type NeedsAnswers = z.infer<typeof NeedsAnswers>;

/** The iterate lane ended promoted/rerouted: the request continues in `target`. */
export const Handoff = z.object({
  kind: z.literal("handoff"),
  lane: z.literal("iterate"),
  target: z.enum(["insight", "idea"]),
  /** The request the target lane works on (the task's request). */
  request: z.string(),
  reason: z.string(),
  /** promotion_handoff.json, relative to the repository root. */
  path: z.string(),
  result: IterateResult,
});
export type Handoff = z.infer<typeof Handoff>;

/** A lane that threw (or was stopped): recorded by drivers that keep going (the chat). */
export const Failed = z.object({
  kind: z.literal("failed"),
  lane: z.enum(["iterate", "insight", "idea"]),
  /** Task or record id; "" when none was made. */
  id: z.string(),
  message: z.string(),
  /** Stopped on purpose (Ctrl-C) rather than by an error. */
  stopped: z.boolean(),
  /** The task's checkpoint exists: `/resume <id>` or `devflow iterate --resume` continues it. */
  resumable: z.boolean(),
});
export type Failed = z.infer<typeof Failed>;

export const IterateOutcome = z.discriminatedUnion("kind", [IterateFinished, NeedsAnswers, Handoff]);
export type IterateOutcome = z.infer<typeof IterateOutcome>;
export type InsightOutcome = z.infer<typeof InsightFinished>;
export type IdeaOutcome = z.infer<typeof IdeaFinished>;
export type ComposeOutcome = z.infer<typeof ComposeFinished>;

export const LaneOutcome = z.discriminatedUnion("kind", [
  z.discriminatedUnion("lane", [IterateFinished, InsightFinished, IdeaFinished]),
  NeedsAnswers,
  Handoff,
  Failed,
]);
export type LaneOutcome = z.infer<typeof LaneOutcome>;

/**
 * Drives a lane for a caller that can ask at once (a TTY): while it needs answers, ask and
 * resume the same task. `ask` returning null leaves the lane waiting (its checkpoint keeps the
 * questions; `--resume` asks again).
 */
export async function answerLane<O extends LaneOutcome>(
  outcome: O,
  ask: (questions: NeedsAnswers) => Promise<string | null>,
  resume: (taskId: string, answer: string) => Promise<O>,
): Promise<O> {
  let current = outcome;
  while (current.kind === "needs_answers") {
    const answer = await ask(current);
    if (answer === null) break;
    current = await resume(current.task_id, answer);
  }
  return current;
}

export function failedOutcome(
  lane: Failed["lane"],
  id: string,
  message: string,
  flags: { stopped: boolean; resumable: boolean },
): Failed {
  return { kind: "failed", lane, id, message, ...flags };
}
