import { EXTRA_VERIFIERS_EXIT_CODE_CAVEAT } from "../artifacts/schemas/extra-verifier.js";
import type { GateCaveat, GateCheck, GateVerdict } from "../artifacts/schemas/gate-verdict.js";
import {
  isIntegrityChecked,
  type VerifierEnvelope,
  type VerifierName,
} from "../artifacts/schemas/verifier-envelope.js";
import { configuresTests } from "./test-config-files.js";

/** The seam passed by exit code alone: no test was named (also in ./seam.ts's messages). */
export const EXIT_CODE_ONLY_CAVEAT = "seam identified by exit code only";

/** No seam canary ran (ADR 0028): a neutered assertion library or forged runner output would pass. */
/** A seam whose runs could not be traced (ADR 0072): no strace, ptrace refused, turned off. */
export const NOT_TRACED_CAVEAT =
  "the seam's runs were not traced, so which changed test files and data they read was judged from the shapes of their source only";

export const NO_CANARY_CAVEAT =
  "no seam canary ran, so a neutered assertion library or a forged runner result would go unnoticed";

export { EXTRA_VERIFIERS_EXIT_CODE_CAVEAT };

/** Seam test code devflow could not fingerprint (ADR 0019, amendment 3), named after the colon. */
export const UNPROTECTED_SEAM_CODE_CAVEAT = "not fingerprinted, so edits to it were not checked";

/**
 * Test code or data the seam's verdict rests on that the task's scope names exactly (so it stays
 * editable: the request is about it) and the attempt changed, named after the colon (ADR 0074). The
 * seam then shows the code meets that evidence as the attempt left it, not as the user wrote it.
 */
export const SCOPE_NAMED_EVIDENCE_CAVEAT =
  "the seam's verdict rests on test code or data the scope names and the attempt changed, so it shows the code meets them as changed";

/**
 * The attempt changed files that can configure how tests run, named after the colon. Only where the
 * scope lets it (elsewhere regression fails the attempt). The seam was judged with base's copy of
 * each (ADR 0074); the suite had to pass with the attempt's copy and again with base's (ADR 0082),
 * and what the attempt's configuration does (an alias, a transform, a module mapper) is seen by
 * the critic only.
 */
export const CHANGED_TEST_CONFIG_CAVEAT =
  "the attempt changed test configuration: the seam was judged with base's copy of it, and the suite (when there is a test command) had to pass with the attempt's copy and with base's; what the attempt's copy does is judged by the critic only";

/**
 * Regression ran without npm's pre scripts, because base's run with them gave no report (ADR 0085):
 * what they would build from the attempt's code (a committed `lib/` from `src/`) was not rebuilt,
 * so the suite tested what the tree holds (review, stop 46, attack 50).
 */
export const PRE_SCRIPTS_LEFT_OUT_CAVEAT =
  "the suite ran without npm's pre scripts (base's run with them gave no report): what they build from the attempt's code was not rebuilt";

export interface CompletionGateOptions {
  /** The attempt being judged: every envelope must come from it. */
  attemptId: string;
  /** True when the user asked for a regression run (e.g. passed --test-cmd) or policy demands one. */
  requireRegression: boolean;
  /** The task carries extra verifiers (ADR 0056): their envelope must be there and pass. */
  requireExtraVerifiers?: boolean;
}

/** The order the gate reads verifiers in, and the order a verdict lists them. */
export const GATE_ORDER: readonly VerifierName[] = [
  "seam",
  "seam_integrity",
  "scope",
  "critic",
  "regression",
  "extra_verifiers",
];

/**
 * The Iterator's completion gate (docs/origins.md#03-completion-gate): completion only when
 *  1. the scoped failing seam is green            → seam pass
 *  2. success criteria are satisfied              → critic pass
 *  3. the change stayed within task scope         → scope pass
 *  4. observation evidence and final behaviour agree → seam aligned + seam_integrity pass
 *  5. no blocker invalidates the claim            → critic pass (it fails on blockers / plan_invalid)
 * plus "no test green on base is red now" (regression). A verifier that could not run ("error")
 * or is missing is a failure, never a pass (docs/architecture.md, "Principles"). What a pass leaves
 * unchecked (regression skipped without a test command) is a caveat of the verdict, so every
 * record of the pass can say so.
 */
export function completionGate(
  envelopes: readonly VerifierEnvelope[],
  options: CompletionGateOptions,
): GateVerdict {
  const reasons: string[] = [];
  const caveats: GateCaveat[] = [];
  const checks: GateCheck[] = [];

  const foreign = [...new Set(envelopes.map((e) => e.attempt_id))].filter((id) => id !== options.attemptId);
  if (foreign.length > 0) {
    reasons.push(
      `verifier results come from different attempts (${[options.attemptId, ...foreign].join(", ")}); judge one attempt at a time`,
    );
  }

  for (const name of GATE_ORDER) {
    const mine = envelopes.filter((e) => e.verifier === name);
    if (mine.length === 0) {
      // Only a task that has extra verifiers has their envelope.
      if (name === "extra_verifiers" && !options.requireExtraVerifiers) continue;
      reasons.push(`${name}: no result (the verifier did not run)`);
      continue;
    }
    for (const e of mine) {
      checks.push({ verifier: name, overall_result: e.overall_result });
      const problem = judge(e, options);
      if (problem.reason) reasons.push(`${name}: ${problem.reason}`);
      if (problem.caveat) caveats.push({ verifier: name, caveat: problem.caveat });
    }
  }
  // An attempt whose tree equals base outside the seam's files fixed nothing in the repository, whatever the
  // verifiers say (a runner patched in node_modules, a flaky seam that happened to pass).
  const scope = envelopes.find((e) => e.verifier === "scope");
  const changed =
    scope?.verifier === "scope"
      ? (scope.native_payload.changed_since_base ?? scope.native_payload.changed_files)
      : null;
  if (changed !== null && changed.length === 0)
    reasons.push(
      "empty change: no tracked file differs from base outside the seam's own files, so there is nothing to complete",
    );
  const configs = (changed ?? []).filter(configuresTests);
  if (configs.length > 0)
    caveats.push({ verifier: "scope", caveat: `${CHANGED_TEST_CONFIG_CAVEAT}: ${configs.join(", ")}` });
  const regression = envelopes.find((e) => e.verifier === "regression");
  if (
    regression?.verifier === "regression" &&
    regression.overall_result === "pass" &&
    "pre_scripts_left_out" in regression.native_payload &&
    regression.native_payload.pre_scripts_left_out
  )
    caveats.push({ verifier: "regression", caveat: PRE_SCRIPTS_LEFT_OUT_CAVEAT });
  const seam = envelopes.find((e) => e.verifier === "seam");
  if (seam?.verifier === "seam" && seam.overall_result === "pass") {
    const exitCodeOnly = seam.native_payload.evidence === "exit_code";
    const noCanary = exitCodeOnly || seam.native_payload.canary?.status === "not_run";
    const why = seam.native_payload.canary?.reason;
    if (exitCodeOnly)
      caveats.push({ verifier: "seam", caveat: `${EXIT_CODE_ONLY_CAVEAT}; ${NO_CANARY_CAVEAT}` });
    else if (noCanary)
      caveats.push({ verifier: "seam", caveat: `${NO_CANARY_CAVEAT}${why ? ` (${why})` : ""}` });
    const trace = seam.native_payload.load_trace;
    if (trace?.status === "unavailable")
      caveats.push({ verifier: "seam", caveat: `${NOT_TRACED_CAVEAT} (${trace.reason ?? "no tracer"})` });
  }
  const integrity = envelopes.find((e) => e.verifier === "seam_integrity");
  const checkedIntegrity =
    integrity?.verifier === "seam_integrity" &&
    integrity.overall_result === "pass" &&
    isIntegrityChecked(integrity.native_payload)
      ? integrity.native_payload
      : null;
  if (checkedIntegrity?.unprotected?.length)
    caveats.push({
      verifier: "seam_integrity",
      caveat: `${UNPROTECTED_SEAM_CODE_CAVEAT}: ${checkedIntegrity.unprotected.join(", ")}`,
    });
  if (checkedIntegrity?.scope_named_changed?.length)
    caveats.push({
      verifier: "seam_integrity",
      caveat: `${SCOPE_NAMED_EVIDENCE_CAVEAT}: ${checkedIntegrity.scope_named_changed.join(", ")}`,
    });
  const [first, ...rest] = reasons;
  const judged = { attempt_id: options.attemptId, checks, caveats };
  return first === undefined
    ? { result: "pass", ...judged, reasons: [] }
    : { result: "fail", ...judged, reasons: [first, ...rest] };
}

function judge(e: VerifierEnvelope, options: CompletionGateOptions): { reason?: string; caveat?: string } {
  const said = e.summary ? ` (${e.summary})` : "";
  switch (e.overall_result) {
    case "error":
      return { reason: `could not run, which counts as a failure${said}` };
    case "fail":
      return { reason: `failed${said}` };
    case "skipped":
      if (e.verifier === "regression" && !options.requireRegression) {
        return { caveat: `not run, so regressions were not checked${said}` };
      }
      if (e.verifier === "regression") {
        return { reason: `skipped, but a regression run is required${said}` };
      }
      return { reason: `skipped, which is not allowed for this verifier${said}` };
    case "pass":
      // A seam can exit 0 for the wrong reason; only a run aligned with the green condition counts.
      if (e.verifier === "seam" && e.green_condition_alignment !== "aligned") {
        return {
          reason: `passed but green condition alignment is "${e.green_condition_alignment}", not "aligned"`,
        };
      }
      if (e.verifier === "extra_verifiers") return { caveat: EXTRA_VERIFIERS_EXIT_CODE_CAVEAT };
      return {};
  }
}
