import { z } from "zod";
import { Revision, Timestamp } from "./common.js";
import { SpendTally } from "./spend.js";

/**
 * The daemon's ticket contract (issue 12, ADR 0051): the YAML frontmatter of a Markdown ticket a
 * user drops into the queue. Closed objects everywhere: an unknown key is a plan-lint error, never a
 * setting silently ignored. `not_before` stays a string here; plan-lint parses it (an unparseable
 * stamp is an error, not "eligible"), so the rule lives in one place and reports its own reason.
 * Printed by `devflow schema`, exported as schemas/ticket.schema.json. Changing it is a breaking
 * change for whoever writes tickets.
 */

export const TICKET_PRIORITIES = ["high", "normal", "low"] as const;
export const TicketPriority = z.enum(TICKET_PRIORITIES);
export type TicketPriority = z.infer<typeof TicketPriority>;

/** A label name: one line, no spaces at either end. */
const Label = z
  .string()
  .min(1)
  .max(100)
  .regex(/^\S(?:[^\n\r]*\S)?$/, "one line, no leading or trailing spaces");

export const TicketFrontmatter = z.strictObject({
  repo: z
    .string()
    .min(1)
    .optional()
    .describe(
      "local path (relative to the ticket file) or git URL; selects the change flow (the iterate lane) unless audit/investigate is set",
    ),
  audit: z
    .strictObject({
      focus: z.string().min(1).optional().describe("what the read-only audit looks at"),
    })
    .optional()
    .describe("a read-only audit of repo; its findings are parked for review"),
  investigate: z
    .strictObject({
      question: z.string().min(1).describe("the one question to investigate, read-only"),
    })
    .optional()
    .describe("a read-only investigation of one question about repo"),
  priority: TicketPriority.optional().describe("claim order: high before normal before low (default normal)"),
  not_before: z
    .string()
    .min(1)
    .optional()
    .describe("UTC instant (ISO 8601 with Z or +00:00) before which the ticket is not claimed"),
  labels: z.array(Label).max(50).optional().describe("each must be a known label of the data root's config"),
  coder: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe("the coder the change flow uses (default: devflow's)"),
  model: z.string().min(1).max(200).optional().describe("the model id (default: devflow's)"),
  max_iterations: z.number().int().min(1).max(50).optional().describe("attempts of the iterate lane"),
  budget_usd: z.number().positive().max(10_000).optional().describe("this ticket's spend cap in USD"),
});
export type TicketFrontmatter = z.infer<typeof TicketFrontmatter>;

/** Where a ticket is: its queue folder (cancelled tickets sit in failed/ with `status: cancelled`). */
export const TICKET_STATES = ["inbox", "processing", "done", "failed"] as const;
export const TicketState = z.enum(TICKET_STATES);
export type TicketState = z.infer<typeof TicketState>;

export const TICKET_STATUSES = [
  "queued",
  "running",
  "completed",
  "failed",
  "lint_failed",
  "cancelled",
] as const;
export const TicketStatus = z.enum(TICKET_STATUSES);
export type TicketStatus = z.infer<typeof TicketStatus>;

/** One plan-lint error: a stable rule name and the one-line reason shown to the user. */
export const LintFinding = z.strictObject({
  rule: z.enum([
    "ticket_too_large",
    "frontmatter_missing",
    "frontmatter_unparseable",
    "unknown_key",
    "invalid_field",
    "not_before_unparseable",
    "unknown_label",
    "repo_not_git",
    "verification_fence_not_bash",
    "cd_in_verification",
  ]),
  message: z.string().min(1),
});
export type LintFinding = z.infer<typeof LintFinding>;

/** The flavour a ticket selects (issue 12): change flow, audit, investigation or Q&A. */
export const TicketKind = z.enum(["change", "audit", "investigate", "question"]);
export type TicketKind = z.infer<typeof TicketKind>;

/**
 * The daemon's revisioned record of one ticket, `data/tickets/<id>/ticket_record.json` (written by
 * the ArtifactStore: atomic, every earlier revision kept in history/). The ticket file itself is never
 * edited; everything the daemon learns about it lands here.
 */
export const TicketRecord = z.strictObject({
  revision: Revision,
  id: z.string().min(1),
  state: TicketState,
  status: TicketStatus,
  kind: TicketKind.nullable().describe("null when the ticket did not parse"),
  submitted_at: Timestamp,
  updated_at: Timestamp,
  source: z.string().describe("the path the ticket was submitted from"),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  bytes: z.number().int().min(0),
  priority: TicketPriority,
  not_before: Timestamp.nullable().describe("normalised UTC instant, null when none"),
  repo: z.string().nullable().describe("as written in the ticket"),
  repo_key: z
    .string()
    .nullable()
    .describe("canonical real path (or the URL): tickets of one key never run at once"),
  retry_count: z.number().int().min(0),
  recoveries: z.number().int().min(0).describe("times a dead or stale lease was returned to the inbox"),
  provider_requeues: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe(
      "times a coder's provider stop (auth, rate_limit) sent the ticket back to the inbox (bounded by worker.maxProviderRequeues); absent = 0",
    ),
  lint: z.array(LintFinding).describe("plan-lint errors; non-empty means the ticket went to failed/"),
  reason: z.string().nullable().describe("why the ticket is where it is, in one line"),
});
export type TicketRecord = z.infer<typeof TicketRecord>;

/** A claim's lease, `queue/processing/<id>@<token>.lease.json`: who holds the ticket and since when. */
export const TicketLease = z.strictObject({
  ticket_id: z.string().min(1),
  token: z.string().regex(/^[0-9a-f]{16}$/),
  owner_pid: z.number().int().min(1),
  host: z.string().min(1),
  started_at: Timestamp,
  heartbeat_at: Timestamp,
});
export type TicketLease = z.infer<typeof TicketLease>;

/**
 * The worker of `devflow daemon` (ADR 0051 amendment): the key names are the ones issue 12 gives
 * (`worker.maxConcurrent`, `worker.maxTransientRetries`), so an operator reading the issue types them.
 */
export const WorkerConfig = z.strictObject({
  maxConcurrent: z
    .number()
    .int()
    .min(1)
    .max(64)
    .default(1)
    .describe("tickets run at once (same-repository tickets always serialise)"),
  pollIntervalSeconds: z
    .number()
    .min(0.05)
    .max(3600)
    .default(5)
    .describe("seconds between claims of an idle worker"),
  recoverIntervalSeconds: z
    .number()
    .min(0.05)
    .max(86_400)
    .default(60)
    .describe("seconds between recoveries of dead or stale leases while running"),
  heartbeatSeconds: z
    .number()
    .min(0.05)
    .max(3600)
    .optional()
    .describe(
      "seconds between lease heartbeats of a running ticket (default: a third of lease_stale_seconds)",
    ),
  graceSeconds: z
    .number()
    .min(0)
    .max(86_400)
    .default(60)
    .describe("after SIGTERM/SIGINT, how long running tickets may finish before they are stopped resumably"),
  maxTransientRetries: z
    .number()
    .int()
    .min(0)
    .max(100)
    .default(3)
    .describe("requeues of a ticket after a transient model-endpoint failure before it goes to failed/"),
  backoffBaseSeconds: z
    .number()
    .min(0)
    .max(86_400)
    .default(30)
    .describe("first transient backoff; each retry doubles it, with jitter"),
  backoffMaxSeconds: z.number().min(0).max(86_400).default(900).describe("cap of the transient backoff"),
  // The provider gate (ADR 0052).
  maxProviderRequeues: z
    .number()
    .int()
    .min(0)
    .max(100)
    .default(3)
    .describe(
      "requeues of a ticket whose coder stopped on its provider (auth, rate_limit; read from text a model can print) before it is finalized blocked",
    ),
  probeEnabled: z
    .boolean()
    .default(true)
    .describe("probe the live endpoint (GET <base URL>/models) before each claim when work is eligible"),
  probeTimeoutSeconds: z.number().min(0.05).max(300).default(5).describe("bound of the readiness probe"),
  rateLimitBaseSeconds: z
    .number()
    .min(0)
    .max(86_400)
    .default(30)
    .describe("first rate_limited closure when the server sends no Retry-After; each one in a row doubles"),
  rateLimitMaxSeconds: z.number().min(0).max(86_400).default(900).describe("cap of the rate_limited closure"),
  dailyBudgetUsd: z
    .number()
    .positive()
    .max(1_000_000)
    .optional()
    .describe(
      "cap of the known spend per local calendar day (data/spend.json); reached, nothing is claimed until local midnight or a raised cap (absent: no cap)",
    ),
  // Operating the daemon (ADR 0054).
  healthPort: z
    .union([z.literal(false), z.number().int().min(0).max(65_535)])
    .default(0)
    .describe(
      "port of GET /health and /metrics on 127.0.0.1; 0 = any free port (written to <root>/health.json), false = no server; needs a restart",
    ),
  logMaxBytes: z
    .number()
    .int()
    .min(1024)
    .max(1024 ** 3)
    .default(10 * 1024 * 1024)
    .describe("size at which logs/daemon.log is rotated to daemon.log.1"),
  logKeepFiles: z
    .number()
    .int()
    .min(0)
    .max(100)
    .default(5)
    .describe("rotated logs kept (daemon.log.1 … daemon.log.N); 0 = none"),
  // A ticket's `## Verification` blocks as extra verifiers (ADR 0056).
  maxVerificationBlocks: z
    .number()
    .int()
    .min(0)
    .max(100)
    .default(8)
    .describe("most `## Verification` blocks a ticket may have; more fails the ticket before any model call"),
  verificationTimeoutSeconds: z
    .number()
    .min(1)
    .max(86_400)
    .default(300)
    .describe("limit of each Verification block's run; one that hits it fails the attempt"),
});
export type WorkerConfig = z.infer<typeof WorkerConfig>;

/** The daemon's config in the data root (`<root>/config.json`, or `config.yaml`/`config.yml`). */
export const DaemonConfig = z
  .strictObject({
    $schema: z.string().optional(),
    labels: z
      .array(Label)
      .default([])
      .describe("known labels; a ticket label not listed is a plan-lint error"),
    max_ticket_bytes: z
      .number()
      .int()
      .min(256)
      .max(16 * 1024 * 1024)
      .default(65_536)
      .describe("largest ticket file accepted"),
    lease_stale_seconds: z
      .number()
      .int()
      .min(5)
      .default(300)
      .describe("a lease whose heartbeat is older than this is recovered"),
    worker: WorkerConfig.prefault({}).describe("the worker of devflow daemon"),
  })
  .superRefine((config, ctx) => {
    // A heartbeat slower than half the stale time makes the daemon's own recovery take back the
    // tickets it is running, again at every claim (review of stop 18).
    const beat = config.worker.heartbeatSeconds;
    if (beat !== undefined && beat * 2 >= config.lease_stale_seconds)
      ctx.addIssue({
        code: "custom",
        path: ["worker", "heartbeatSeconds"],
        message: `must be less than half of lease_stale_seconds (${config.lease_stale_seconds}), or the daemon recovers its own running tickets`,
      });
  });
export type DaemonConfig = z.infer<typeof DaemonConfig>;
export type { Revision };

/**
 * What one `## Verification` block of a ticket came to (ADR 0056): the result of its run as an
 * extra verifier in the last attempt that ran it, or `not_run` when the run ended before verify
 * (never a pass).
 */
export const VerificationBlockResult = z.strictObject({
  line: z.number().int().min(1).describe("file line of the block's opening fence"),
  code: z.string(),
  status: z
    .enum(["pass", "fail", "error", "not_run"])
    .describe("error: it gave no verdict (timeout, tamper, a survivor); not_run: the run never got to it"),
  attempt_id: z.string().nullable().describe("the attempt whose run this is"),
  exit_code: z.number().int().nullable(),
  reason: z.string().describe("why it failed, gave no verdict or did not run; empty for a pass"),
});
export type VerificationBlockResult = z.infer<typeof VerificationBlockResult>;

/** Who cancelled a running ticket and when (`devflow cancel`, ADR 0056). */
export const CancelRequest = z.strictObject({
  id: z.string().min(1),
  by: z.string().min(1).describe("user@host (pid) of the cancel command"),
  requested_at: Timestamp,
});
export type CancelRequest = z.infer<typeof CancelRequest>;

/**
 * The terminal record of a ticket the daemon ran, `data/tickets/<id>/ticket_result.json` beside its
 * ticket record (ADR 0051 amendment): written once the run ended, before the ticket moves to done/
 * or failed/. `verdict` is the lane's (or `error` when it threw; a read-only ticket's is `answered` or
 * `unanswered`, ADR 0057).
 */
/**
 * How a ticket's run ended: `completed`, `failed`, or one of the partial ends (ADR 0053) whose change
 * was salvaged and verified without the run finishing: `timeout_partial` (the completed change came
 * from a coder stopped at its timeout), `aborted_partial` (the ticket's `budget_usd` stopped the run
 * after at least one attempt's change was verified; that attempt's diff and verdicts are in `partial`).
 */
export const TICKET_RESULT_STATUSES = [
  "completed",
  "failed",
  "aborted_partial",
  "timeout_partial",
  "cancelled",
] as const;
export const TicketResultStatus = z.enum(TICKET_RESULT_STATUSES);
export type TicketResultStatus = z.infer<typeof TicketResultStatus>;

/** The salvaged work of a run that did not finish: the last attempt whose change was verified. */
export const PartialWork = z.strictObject({
  attempt_id: z.string().min(1),
  coder_outcome: z.string().nullable().describe("how the coder of that attempt ended (coder_report)"),
  diff: z.string().describe("the attempt's cumulative diff (artifact path)"),
  verifiers: z.array(z.strictObject({ verifier: z.string(), overall_result: z.string() })),
  gate: z.string().nullable().describe("the completion gate's verdict on it, null when the gate did not run"),
});
export type PartialWork = z.infer<typeof PartialWork>;

/** A guard of the iterate lane that refused something a coder did (src/daemon/guard-trips.ts reads them). */
export const GuardName = z.enum(["tamper", "seam_integrity", "scope", "seam_canary", "process_survived"]);
export type GuardName = z.infer<typeof GuardName>;

/** One guard trip of a change ticket's task: the guard, and the attempt it refused (null: after the gate). */
export const GuardTrip = z.strictObject({ guard: GuardName, attempt_id: z.string().min(1).nullable() });
export type GuardTrip = z.infer<typeof GuardTrip>;

export const TicketResult = z.strictObject({
  revision: Revision,
  id: z.string().min(1),
  kind: TicketKind,
  status: TicketResultStatus,
  verdict: z.string().min(1),
  reason: z.string(),
  task_id: z.string().nullable(),
  branch: z.string().nullable(),
  commit: z.string().nullable(),
  attempts: z.number().int().min(0),
  artifact_dir: z.string().nullable(),
  retry_count: z.number().int().min(0),
  resumed: z.boolean().describe("the run continued a checkpoint of an earlier claim"),
  claimed_at: Timestamp,
  finished_at: Timestamp,
  duration_ms: z.number().int().min(0),
  verification: z.array(VerificationBlockResult),
  cost_usd: SpendTally.optional().describe(
    "the ticket's spend over all its runs (data/spend.json): the known sum and the sessions of unknown cost; absent in records written before ADR 0053",
  ),
  budget_usd: z.number().positive().nullable().optional().describe("the ticket's budget_usd, null when none"),
  partial: PartialWork.nullable()
    .optional()
    .describe("aborted_partial / timeout_partial: the salvaged, verified attempt"),
  cancelled: CancelRequest.extend({ noticed_at: Timestamp })
    .optional()
    .describe("set when `devflow cancel` stopped the run: who asked, when, when the daemon noticed"),
  answer: z
    .string()
    .nullable()
    .optional()
    .describe(
      "audit / investigate / question: the path of its ticket_answer.json (the answer or findings, ADR 0057); null when the run ended before one was stored",
    ),
  guard_trips: z
    .array(GuardTrip)
    .optional()
    .describe(
      "change tickets: every guard trip its task's artifacts record, one per guard per attempt (counted once in devflow_guard_trips_total, also when a retried ticket ends again); absent in records written before it was kept",
    ),
});
export type TicketResult = z.infer<typeof TicketResult>;
