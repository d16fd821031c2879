import { z } from "zod";
import { CoderRunOutcome, CoderStatus } from "./coder-report.js";
import { AttemptId, Revision, Timestamp, Usage } from "./common.js";
import { Contract } from "./contract.js";
import { GateVerdict } from "./gate-verdict.js";
import { VerifierName } from "./verifier-envelope.js";

export const RunState = z.enum([
  "framing",
  "observing",
  "awaiting_readiness",
  "needs_more_context",
  "ready_for_coder",
  "coding",
  "verifying",
  "needs_respawn",
  "completed",
  "blocked",
  "exhausted",
  "promoted",
  "rerouted",
]);
export type RunState = z.infer<typeof RunState>;

export const Readiness = z.object({
  status: z.enum(["ready", "not_ready", "blocked"]),
  reason: z.string(),
  cites: z.object({
    task_artifact_revision: Revision,
    observation_artifact_revision: Revision,
  }),
  seam_red_confirmed: z.boolean(),
  decided_at: Timestamp,
  contract: Contract.optional().describe(
    "The contract pinned in the lane's state when the task became ready (absent otherwise); ADR 0018",
  ),
  contract_sha256: z
    .string()
    .optional()
    .describe("sha256 of the contract's canonical JSON (keys sorted), so a reader can check it"),
});

export const AttemptSummary = z.object({
  attempt_id: AttemptId,
  judge_attempt: z.number().int().min(1),
  timeout_attempts: z
    .number()
    .int()
    .min(1)
    .describe("Coder runs in this attempt, counting timeout escalations"),
  coder_status: CoderStatus,
  coder_outcome: CoderRunOutcome.optional().describe(
    "How the coder run ended; *_partial: it did not finish but its change was verified (absent in older records)",
  ),
  verdict: z.enum(["pass", "fail"]),
  summary: z.string(),
  respawn_reason: z.string().nullable(),
  verifier_refs: z.array(z.object({ verifier: VerifierName, overall_result: z.string(), path: z.string() })),
  coder_report_ref: z.string(),
  gate: GateVerdict.optional().describe(
    "The completion gate's verdict (absent in records written before it was kept)",
  ),
  started_at: Timestamp,
  duration_ms: z.number().min(0),
  usage: Usage,
});
export type AttemptSummary = z.infer<typeof AttemptSummary>;

export const Terminal = z.object({
  verdict: z.enum(["completed", "blocked", "needs_more_context", "exhausted", "promoted", "rerouted"]),
  reason: z.string().min(1),
  branch: z.string().nullable(),
  commit: z.string().nullable(),
  questions: z.array(z.string()),
  gate: GateVerdict.optional().describe(
    "The gate verdict that decided the run (completed, exhausted, or blocked on plan_invalid), caveats included; absent when no gate decided it",
  ),
  at: Timestamp,
});
export type Terminal = z.infer<typeof Terminal>;

export const IteratorRun = z.object({
  artifact: z.literal("iterator_run"),
  task_id: z.string(),
  revision: Revision,
  run_state: RunState,
  state_history: z.array(z.object({ state: RunState, at: Timestamp, reason: z.string() })),
  readiness: Readiness.nullable(),
  limits: z.object({
    max_judge_attempts: z.number().int().min(1),
    max_timeout_escalations: z.number().int().min(0),
    base_timeout_ms: z.number().int().min(1),
  }),
  workspace: z.object({
    repo: z.string(),
    worktree: z.string(),
    branch: z.string(),
    base_commit: z.string(),
    seam_commit: z.string().nullable(),
  }),
  coder_backend: z.string(),
  model: z.string(),
  attempts: z.array(AttemptSummary),
  terminal: Terminal.nullable(),
  usage: z.object({
    total: Usage,
    by_role: z.record(z.string(), Usage),
    by_attempt: z.record(z.string(), Usage).describe("Model and coder usage per attempt id"),
  }),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type IteratorRun = z.infer<typeof IteratorRun>;
