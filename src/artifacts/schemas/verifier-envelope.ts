import { z } from "zod";
import { Timestamp } from "./common.js";
import { ExtraVerifiersPayload } from "./extra-verifier.js";
import {
  CriticPayload,
  isCriticJudged,
  isIntegrityChecked,
  isRegressionCompared,
  isRegressionSkipped,
  RegressionPayload,
  ScopePayload,
  SeamIntegrityPayload,
  SeamPayload,
} from "./verifier-payloads.js";

export * from "./extra-verifier.js";
export * from "./verifier-payloads.js";

export const VerifierName = z.enum([
  "seam",
  "seam_integrity",
  "regression",
  "scope",
  "critic",
  "extra_verifiers",
]);
export type VerifierName = z.infer<typeof VerifierName>;

export const OverallResult = z.enum(["pass", "fail", "error", "skipped"]);
export type OverallResult = z.infer<typeof OverallResult>;

export const GreenConditionAlignment = z.enum(["aligned", "misaligned", "not_applicable", "unknown"]);
export type GreenConditionAlignment = z.infer<typeof GreenConditionAlignment>;

/** The fields every verifier writes, whatever it runs (docs/architecture.md); only native_payload differs. */
const shared = {
  attempt_id: z.string(),
  overall_result: OverallResult,
  green_condition_alignment: GreenConditionAlignment,
  summary: z.string(),
  evidence_refs: z.array(z.string()),
  started_at: Timestamp,
  duration_ms: z.number().min(0),
};

type Judged = { overall_result: OverallResult; native_payload: object };
type Rule<E extends Judged> = (e: E) => string | null;

/**
 * Which payload a result may carry is a zod-only check (JSON Schema cannot tie a field's value to
 * which union branch another field took): a `pass` or `fail` must stand on a payload of a run that
 * produced a verdict, and `skipped` only on a skip payload.
 */
function consistent<E extends Judged>(rule: Rule<E>) {
  return (e: E, ctx: z.RefinementCtx) => {
    const problem = rule(e);
    if (problem) ctx.addIssue({ code: "custom", path: ["native_payload"], message: problem });
  };
}

const verdictNeeds = (result: OverallResult) => result === "pass" || result === "fail";

export const SeamEnvelope = z
  .object({ verifier: z.literal("seam"), ...shared, native_payload: SeamPayload })
  .superRefine(
    consistent((e) => (e.overall_result === "skipped" ? "the seam verifier is never skipped" : null)),
  );
export type SeamEnvelope = z.infer<typeof SeamEnvelope>;

export const SeamIntegrityEnvelope = z
  .object({ verifier: z.literal("seam_integrity"), ...shared, native_payload: SeamIntegrityPayload })
  .superRefine(
    consistent((e) => {
      if (e.overall_result === "skipped") return "the seam_integrity verifier is never skipped";
      if (verdictNeeds(e.overall_result) && !isIntegrityChecked(e.native_payload))
        return `a ${e.overall_result} needs the fingerprints it compared (expected, actual, edited, deleted, created)`;
      return null;
    }),
  );
export type SeamIntegrityEnvelope = z.infer<typeof SeamIntegrityEnvelope>;

export const RegressionEnvelope = z
  .object({ verifier: z.literal("regression"), ...shared, native_payload: RegressionPayload })
  .superRefine(
    consistent((e) => {
      const skipPayload = isRegressionSkipped(e.native_payload);
      if ((e.overall_result === "skipped") !== skipPayload)
        return skipPayload
          ? `a skip payload cannot back a ${e.overall_result}`
          : "a skipped regression must carry a skip payload";
      if ("setup_findings" in e.native_payload)
        return e.overall_result === "fail" ? null : "a changed test setup can only back a fail";
      if (verdictNeeds(e.overall_result) && !isRegressionCompared(e.native_payload))
        return `a ${e.overall_result} needs the comparison it made (compared: per_test or exit_code)`;
      return null;
    }),
  );
export type RegressionEnvelope = z.infer<typeof RegressionEnvelope>;

export const ScopeEnvelope = z
  .object({ verifier: z.literal("scope"), ...shared, native_payload: ScopePayload })
  .superRefine(
    consistent((e) => (e.overall_result === "skipped" ? "the scope verifier is never skipped" : null)),
  );
export type ScopeEnvelope = z.infer<typeof ScopeEnvelope>;

export const CriticEnvelope = z
  .object({ verifier: z.literal("critic"), ...shared, native_payload: CriticPayload })
  .superRefine(
    consistent((e) =>
      verdictNeeds(e.overall_result) && !isCriticJudged(e.native_payload)
        ? `a ${e.overall_result} needs the critic's judged criteria`
        : null,
    ),
  );
export type CriticEnvelope = z.infer<typeof CriticEnvelope>;

export const ExtraVerifiersEnvelope = z
  .object({ verifier: z.literal("extra_verifiers"), ...shared, native_payload: ExtraVerifiersPayload })
  .superRefine(
    consistent((e) => {
      if (e.overall_result === "skipped") return "extra verifiers are never skipped (ADR 0056)";
      const worst = e.native_payload.runs.some((r) => r.result === "error")
        ? "error"
        : e.native_payload.runs.some((r) => r.result === "fail")
          ? "fail"
          : "pass";
      return worst === e.overall_result ? null : `the runs add up to ${worst}, not ${e.overall_result}`;
    }),
  );
export type ExtraVerifiersEnvelope = z.infer<typeof ExtraVerifiersEnvelope>;

/**
 * The normalized envelope every verifier writes, keyed by verifier: the shared fields are the same
 * for all five, native_payload is the verifier's own typed payload (verifier-payloads.ts). The
 * field names on disk are unchanged from the untyped envelope, so older artifacts still read.
 */
export const VerifierEnvelope = z.discriminatedUnion("verifier", [
  SeamEnvelope,
  SeamIntegrityEnvelope,
  RegressionEnvelope,
  ScopeEnvelope,
  CriticEnvelope,
  ExtraVerifiersEnvelope,
]);
export type VerifierEnvelope = z.infer<typeof VerifierEnvelope>;

/** The envelope type of one verifier. */
export type EnvelopeOf<V extends VerifierName> = Extract<VerifierEnvelope, { verifier: V }>;
