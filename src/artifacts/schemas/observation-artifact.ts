import { z } from "zod";
import { EvidenceRef, Revision, Timestamp } from "./common.js";

export const ObservationStatus = z.enum(["confirmed", "not_confirmed", "inconclusive", "seam_created"]);
export const ObservationVerdict = z.enum([
  "ready_for_coder",
  "needs_more_context",
  "blocked",
  "reroute_insight",
  "promote_idea",
]);

export const FailingSeam = z.object({
  description: z.string().min(1),
  command: z
    .string()
    .min(1)
    .describe("Shell command, run in the worktree root, that exits non-zero while the problem exists"),
  files: z.array(z.string()).describe("Repo-relative files that make up the seam (e.g. a repro test)"),
});

/** What the Observer agent returns; devflow adds bookkeeping and its own seam check. */
export const ObservationFindings = z.object({
  status: ObservationStatus,
  summary: z.string().min(1),
  evidence: z.array(z.object({ claim: z.string(), refs: z.array(EvidenceRef) })),
  repro_steps: z.array(z.string()),
  failing_seam: FailingSeam.nullable(),
  expected_green_condition: z.string().nullable(),
  verdict: ObservationVerdict,
  questions: z.array(z.string()),
});
export type ObservationFindings = z.infer<typeof ObservationFindings>;

/** The orchestrator's own run of the seam command on the untouched base. */
export const SeamCheck = z.object({
  ran: z.boolean(),
  exit_code: z.number().int().nullable(),
  red: z.boolean().describe("True when the seam failed on base, as claimed"),
  output_excerpt: z.string(),
  log_ref: z.string().nullable(),
  checked_at: Timestamp,
  /** devflow's one-sentence verdict (why it is or is not confirmed). */
  message: z.string().optional(),
  /** Keys of the seam's tests that failed by name on base (pinned for the seam verifier). */
  tests: z.array(z.string()).optional(),
  /** What the check could not establish, e.g. "seam identified by exit code only". */
  caveat: z.string().nullable().optional(),
});

export const ObservationArtifact = ObservationFindings.extend({
  artifact: z.literal("observation_artifact"),
  task_id: z.string().min(1),
  revision: Revision,
  task_revision: Revision.describe("The task_artifact revision this observation was made against"),
  observer_claimed_status: ObservationStatus.describe(
    "Status as the Observer reported it, before devflow's seam check",
  ),
  seam_check: SeamCheck.nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type ObservationArtifact = z.infer<typeof ObservationArtifact>;
