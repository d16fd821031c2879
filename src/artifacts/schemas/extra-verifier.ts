import { z } from "zod";

/**
 * One extra verifier of a change (ADR 0056): a named bash script from whoever asked for the change
 * (a ticket's `## Verification` block), run by verify after seam and regression, confined in the
 * verification checkout like them. Trusted as much as the request, but it runs the coder's code.
 */
export const ExtraVerifier = z.strictObject({
  name: z.string().min(1).max(200).describe("how verdicts and repair context name the script"),
  script: z.string().min(1).describe("bash source, run with `bash -e -o pipefail` in the checkout's root"),
});
export type ExtraVerifier = z.infer<typeof ExtraVerifier>;

/**
 * What a pass of a task's extra verifiers rests on (ADR 0059, 0063), said by the gate's caveat and
 * each block's ticket_result entry: bash scripts judged by their exit code. A node program that the
 * attempt's code ends early fails (the guard, ADR 0063); any other program the blocks run is judged
 * by its exit code only, and the code it loads runs in its process and could end it early with exit 0.
 */
export const EXTRA_VERIFIERS_EXIT_CODE_CAVEAT =
  "judged by exit code only for programs other than node: code the blocks load runs in their process and could end it early with exit 0 (a node program ended early by the attempt's code fails)";

/** What one script's run produced. `error`: it gave no verdict (timeout, abort, spawn failure, tamper). */
export const ExtraVerifierRun = z.strictObject({
  name: z.string(),
  result: z.enum(["pass", "fail", "error"]),
  exit_code: z.number().int().nullable(),
  timed_out: z.boolean(),
  /** Why the run gave no verdict, or null. */
  failure: z.string().nullable(),
  output_excerpt: z.string(),
  output_truncated: z.boolean(),
  duration_ms: z.number().min(0),
  /** The full (redacted) output, relative to the attempt directory. */
  log: z.string(),
  /**
   * The files the script runs as programs that base tracks, run as on base (ADR 0059); `changed`:
   * the attempt had changed it, so the block ran the base version instead. Absent in older records.
   */
  from_base: z
    .array(z.strictObject({ path: z.string().min(1), changed: z.boolean() }))
    .optional()
    .describe("programs the script runs, taken from base (ADR 0059)"),
});
export type ExtraVerifierRun = z.infer<typeof ExtraVerifierRun>;

/** The extra_verifiers envelope's payload: every script of the task, in order, each with its run. */
export const ExtraVerifiersPayload = z.strictObject({
  timeout_ms: z.number().int().min(1),
  runs: z.array(ExtraVerifierRun).min(1),
});
export type ExtraVerifiersPayload = z.infer<typeof ExtraVerifiersPayload>;
