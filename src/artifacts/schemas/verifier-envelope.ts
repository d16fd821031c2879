import { z } from "zod";
import { Timestamp } from "./common.js";

export const VerifierName = z.enum(["seam", "seam_integrity", "regression", "scope", "critic"]);
export type VerifierName = z.infer<typeof VerifierName>;

/** The normalized envelope every verifier writes, whatever it runs (ARCHITECTURE §4). */
export const VerifierEnvelope = z.object({
  verifier: VerifierName,
  attempt_id: z.string(),
  overall_result: z.enum(["pass", "fail", "error", "skipped"]),
  green_condition_alignment: z.enum(["aligned", "misaligned", "not_applicable", "unknown"]),
  summary: z.string(),
  evidence_refs: z.array(z.string()),
  started_at: Timestamp,
  duration_ms: z.number().min(0),
  native_payload: z.record(z.string(), z.unknown()),
});
export type VerifierEnvelope = z.infer<typeof VerifierEnvelope>;
