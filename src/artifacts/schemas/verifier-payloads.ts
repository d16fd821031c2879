import { z } from "zod";

/*
 * Each verifier's native_payload, one schema per shape it writes. Every variant is a closed object
 * (as the generated JSON Schema is), so a payload matches exactly one variant and the variant
 * tells what happened: whether a command ran, whether a comparison was made, whether the model
 * was asked. The field names are the ones devflow has always written.
 */

/** What running one command produced (verify/run-command.ts), as the seam verifier records it. */
export const SeamPayload = z.strictObject({
  command: z.string(),
  files: z.array(z.string()),
  expected_green_condition: z.string().nullable(),
  exit_code: z.number().int().nullable(),
  signal: z.string().nullable(),
  timed_out: z.boolean(),
  aborted: z.boolean(),
  spawn_error: z.string().nullable(),
  output_excerpt: z.string(),
  output_truncated: z.boolean(),
  total_output_bytes: z.number().int().min(0),
  duration_ms: z.number().min(0),
  /** named_tests: the pinned seam tests had to pass by name; exit_code: no runner, exit 0 was green. */
  evidence: z.enum(["named_tests", "exit_code"]).optional(),
  /** Keys of the seam tests pinned on base. */
  tests: z.array(z.string()).optional(),
  /** One entry per repeated run (the output fields above describe the first red run, else the last). */
  runs: z
    .array(
      z.object({
        result: z.enum(["green", "red", "error"]),
        exit_code: z.number().int().nullable(),
        reason: z.string(),
      }),
    )
    .optional(),
  /** e.g. "flake: 1 of 3 seam runs were red". */
  findings: z.array(z.string()).optional(),
  /**
   * The seam canary (ADR 0028): a test devflow adds to each named seam run that must fail.
   * failed_as_required: it failed in every run; tampered: in some run it passed, was skipped or
   * missing, or the runner exited 0 (reason says which); not_run: no canary (reason says why).
   */
  canary: z
    .object({ status: z.enum(["failed_as_required", "tampered", "not_run"]), reason: z.string().nullable() })
    .optional(),
  /**
   * The record of the files the seam's processes opened (ADR 0072). traced: taken in every run;
   * broken: a run's trace could not be believed (that run is red); unavailable: no tracer here
   * (strace missing, ptrace refused), so only the shape checks of ADR 0019 stood; not_traced: a
   * jest seam (its haste map reads files it never loads).
   */
  load_trace: z
    .object({
      status: z.enum(["traced", "broken", "unavailable", "not_traced"]),
      reason: z.string().nullable(),
    })
    .optional(),
  /**
   * Test configuration files the attempt changed (runner, npm, transform, package.json, path-map
   * and pytest configs) that the seam ran with base's copy of, or without where base has none
   * (ADR 0074): an alias, preload or mapper of the attempt's cannot make the seam green.
   */
  test_config_from_base: z.array(z.string()).optional(),
});
export type SeamPayload = z.infer<typeof SeamPayload>;

const FileHashes = z.record(z.string(), z.string().nullable());

/** The seam files were fingerprinted again and compared with the fingerprints taken on base. */
export const SeamIntegrityChecked = z.strictObject({
  expected: FileHashes,
  actual: FileHashes,
  edited: z.array(z.string()),
  deleted: z.array(z.string()),
  created: z.array(z.string()),
  /** Seam test code that could not be fingerprinted, so edits to it were not checked (a gate caveat). */
  unprotected: z.array(z.string()).optional(),
  /** Seam evidence the scope names exactly (not fingerprinted) that the attempt changed: a caveat of a pass. */
  scope_named_changed: z.array(z.string()).optional(),
});
/** The files could not be fingerprinted (error). */
export const SeamIntegrityUnchecked = z.strictObject({ files: z.array(z.string()) });
export const SeamIntegrityPayload = z.union([SeamIntegrityChecked, SeamIntegrityUnchecked]);
export type SeamIntegrityPayload = z.infer<typeof SeamIntegrityPayload>;
export const isIntegrityChecked = (p: SeamIntegrityPayload): p is z.infer<typeof SeamIntegrityChecked> =>
  "expected" in p;

/** No test command, so the suite was not run (the only way regression may be skipped). */
export const RegressionSkipped = z.strictObject({
  // Optional: older runs wrote `{}` for this case.
  command: z.null().optional(),
  skip_reason: z.literal("no_test_command").optional(),
});
/**
 * No test command, and the attempt changed a runner or transform config the scope does not name
 * (fail): that changes how the seam's own run loads the code, suite or no suite (stop 31).
 */
export const RegressionSetupChanged = z.strictObject({
  command: z.null(),
  setup_findings: z.array(z.string()).min(1),
});
/** The suite was not started: no baseline, or the baseline ran another command (error). */
export const RegressionNotStarted = z.strictObject({
  command: z.string(),
  baseline_command: z.string().optional(),
});
const regressionRun = {
  command: z.string(),
  exit_code: z.number().int().nullable(),
  baseline_exit_code: z.number().int().nullable(),
  output_excerpt: z.string(),
  output_truncated: z.boolean(),
};
/** The suite was started but produced no verdict (timeout, not found, spawn failure: error). */
export const RegressionNoVerdict = z.strictObject(regressionRun);
/** Compared by exit code only, because per-test results were missing on one side (or the baseline did not run). */
export const RegressionByExitCode = z.strictObject({
  ...regressionRun,
  compared: z.literal("exit_code"),
  per_test_unavailable: z.enum(["current run", "baseline"]).optional(),
  /** Tampered test setup and similar, which fail the run whatever the exit code. */
  findings: z.array(z.string()).optional(),
});
/** Compared test by test against the baseline. */
export const RegressionPerTest = z.strictObject({
  ...regressionRun,
  compared: z.literal("per_test"),
  tests_on_base: z.number().int().min(0),
  tests_now: z.number().int().min(0),
  regressions: z.array(z.object({ name: z.string(), now: z.enum(["fail", "missing", "skip", "todo"]) })),
  newly_passing: z.array(z.string()),
  still_failing: z.array(z.string()),
  /**
   * Tests failing now that did not fail on base (new, skipped there, or never reached): each fails
   * regression (ADR 0080).
   */
  new_failures: z.array(z.string()),
  /** reporter: the runner's own report (full test identities); absent or stdout: console parsing. */
  source: z.enum(["reporter", "stdout"]).optional(),
  /** The command actually run: the base's pinned test script with report flags. */
  ran_command: z.string().optional(),
  /** Seam tests left out of the comparison (judged by the seam verifier). */
  seam_tests_excluded: z.number().int().min(0).optional(),
  /** Why the suite runs without npm's pre scripts although base's package.json has some (ADR 0085). */
  pre_scripts_left_out: z.string().optional(),
  /**
   * The package command that ran the suite as written, with base's scripts asking for the report
   * (ADR 0088), and why devflow could not run the script itself.
   */
  through_package_manager: z.string().optional(),
  /**
   * pytest's regression canary (ADR 0079): failed_as_required: it failed as it did on base;
   * tampered: it passed, was skipped or missing, or the runner exited 0; not_run: no canary (the
   * reason says why, e.g. pytest did not collect it on base).
   */
  canary: z
    .discriminatedUnion("status", [
      z.object({ status: z.literal("failed_as_required"), reason: z.null() }),
      z.object({ status: z.enum(["tampered", "not_run"]), reason: z.string() }),
    ])
    .optional(),
  /** Why this run fails besides regressions (incomplete report, tampered test setup). */
  findings: z.array(z.string()).optional(),
});
export const RegressionPayload = z.union([
  RegressionPerTest,
  RegressionByExitCode,
  RegressionNoVerdict,
  RegressionNotStarted,
  RegressionSetupChanged,
  RegressionSkipped,
]);
export type RegressionPayload = z.infer<typeof RegressionPayload>;
export type RegressionComparedPayload =
  | z.infer<typeof RegressionPerTest>
  | z.infer<typeof RegressionByExitCode>;
export const isRegressionCompared = (p: RegressionPayload): p is RegressionComparedPayload => "compared" in p;
export const isRegressionSkipped = (p: RegressionPayload): p is z.infer<typeof RegressionSkipped> =>
  !("exit_code" in p) &&
  !("baseline_command" in p) &&
  !("setup_findings" in p) &&
  (p.command === undefined || p.command === null);

export const ScopePayload = z.strictObject({
  allowed_paths: z.array(z.string()),
  changed_files: z.array(z.string()),
  out_of_scope: z.array(z.string()),
  restricted: z.boolean(),
  /** Tracked files that differ from the base commit, the seam's own files left out: empty = nothing was changed. */
  changed_since_base: z.array(z.string()).optional(),
  /** Ignored files left in the coder's checkout and symlinks leaving the repository (ADR 0024): each fails scope. */
  snapshot_findings: z.array(z.string()).optional(),
});
export type ScopePayload = z.infer<typeof ScopePayload>;

const promptStats = {
  prompt_bytes: z.number().int().min(0),
  diff: z.strictObject({
    shownBytes: z.number().int().min(0),
    totalBytes: z.number().int().min(0),
    files: z.array(z.string()),
    truncatedFiles: z.array(z.string()),
  }),
  model: z.string(),
};
export const JudgedCriterionPayload = z.strictObject({
  index: z.number().int().min(0),
  criterion: z.string(),
  verdict: z.enum(["met", "unmet", "unclear"]),
  reason: z.string(),
  answered: z.boolean(),
});
/** The critic model answered: one judged verdict per success criterion. */
export const CriticJudged = z.strictObject({
  ...promptStats,
  criteria: z.array(JudgedCriterionPayload),
  blockers: z.array(z.string()),
  plan_invalid: z.boolean(),
  critic_summary: z.string(),
  unmatched_model_criteria: z.array(z.string()),
});
/** The prompt was built but the model gave no verdict (error). */
export const CriticUnanswered = z.strictObject(promptStats);
/** The model was not asked: a deterministic verifier failed (skipped), or the prompt could not be built (error). */
export const CriticNotAsked = z.strictObject({
  // Optional: older runs wrote `{}`.
  skip_reason: z.enum(["deterministic_verifier_failed", "prompt_not_built"]).optional(),
});
export const CriticPayload = z.union([CriticJudged, CriticUnanswered, CriticNotAsked]);
export type CriticPayload = z.infer<typeof CriticPayload>;
export type CriticJudgedPayload = z.infer<typeof CriticJudged>;
export const isCriticJudged = (p: CriticPayload): p is CriticJudgedPayload => "criteria" in p;
