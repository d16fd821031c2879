import { z } from "zod";
import { AttemptId, Timestamp, Usage } from "./common.js";

export const CoderStatus = z.enum([
  "ok",
  "error",
  "timeout",
  "aborted",
  "auth",
  "rate_limit",
  "turn_limit",
  "budget",
]);
export type CoderStatus = z.infer<typeof CoderStatus>;

/**
 * How the coder run ended as far as devflow's judgement is concerned (ADR 0026): the status says
 * what the backend reported, this says whether the tree it left was verified. `*_partial`: the
 * coder did not finish (killed at its timeout, or crashed) but changed the tree, so that change was
 * verified like any other; `timed_out` / `crashed`: it changed nothing; `stopped`: devflow could
 * not trust the run (aborted, a fatal backend status, or a process that survived) and verified nothing.
 */
export const CoderRunOutcome = z.enum([
  "finished",
  "timed_out_partial",
  "crashed_partial",
  "timed_out",
  "crashed",
  "stopped",
]);
export type CoderRunOutcome = z.infer<typeof CoderRunOutcome>;

/** What one coder run did, as devflow observed it. Changed files come from git, never from the coder. */
export const CoderReport = z.object({
  artifact: z.literal("coder_report"),
  task_id: z.string(),
  attempt_id: AttemptId,
  backend: z.string(),
  status: CoderStatus,
  coder_outcome: CoderRunOutcome.optional().describe(
    "How the run ended and whether its change was verified (absent in records written before it was kept)",
  ),
  exit_code: z.number().int().nullable(),
  timeout_ms: z.number().int(),
  timeout_attempt: z.number().int().min(1),
  final_message: z.string().describe("The coder's own closing claim: recorded, never trusted"),
  changed_files: z.array(z.string()),
  coder_commits: z.array(z.string()).describe("Commits the coder made itself, kept on the branch"),
  transcript_ref: z.string(),
  diff_ref: z.string(),
  usage: Usage.nullable(),
  started_at: Timestamp,
  duration_ms: z.number().min(0),
});
export type CoderReport = z.infer<typeof CoderReport>;
