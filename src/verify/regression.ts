import type {
  RegressionComparedPayload,
  RegressionEnvelope,
} from "../artifacts/schemas/verifier-envelope.js";
import { nameList } from "../util/markdown.js";
import { startEnvelope } from "./envelope.js";
import { commandMissing, runVerifierCommand } from "./run-command.js";
import { parseTestResults, type TestOutcome } from "./test-results.js";

/** The project's test suite on the untouched base: what "no regression" is measured against. */
export interface RegressionBaseline {
  command: string;
  /** False when the command produced no verdict (not found, timeout, spawn failure). */
  ran: boolean;
  exitCode: number | null;
  /** Per-test outcomes, or null when the output could not be parsed (or was too large to parse whole). */
  tests: Record<string, TestOutcome> | null;
  /** Why it did not run, or null. */
  error: string | null;
  logPath: string;
}

export interface BaselineInput {
  /** A clean checkout of base (never the coder's worktree). */
  cwd: string;
  command: string;
  timeoutMs: number;
  logPath: string;
  signal?: AbortSignal;
}

/** Runs the test command once on base; the caller stores the result and passes it to every attempt. */
export async function takeRegressionBaseline(input: BaselineInput): Promise<RegressionBaseline> {
  const run = await runVerifierCommand(input);
  const error =
    run.failure ?? (commandMissing(run) ? `\`${input.command}\` was not found (exit ${run.exitCode})` : null);
  const parsed = error || run.outputTruncated ? null : parseTestResults(run.output);
  return {
    command: input.command,
    ran: error === null,
    exitCode: run.exitCode,
    tests: parsed ? Object.fromEntries(parsed) : null,
    error,
    logPath: input.logPath,
  };
}

export interface RegressionVerifierInput {
  worktree: string;
  /** The project's test command; null when none was found or given. */
  command: string | null;
  baseline: RegressionBaseline | null;
  timeoutMs: number;
  logPath: string;
  attemptId: string;
  signal?: AbortSignal;
}

export const NO_TEST_COMMAND_SUMMARY =
  'no test command found (looked for package.json scripts.test, a Makefile test target, pytest config or tests/*.py, go.mod, Cargo.toml), so regressions were not checked; pass --test-cmd "<command>" to check them';

/**
 * Re-runs the test suite in the attempt's worktree: fails when a test green on base is red or
 * missing now. Without per-test output on both sides it compares exit codes, and says so; a red
 * baseline that cannot be compared per test fails rather than passing silently.
 */
export async function runRegressionVerifier(input: RegressionVerifierInput): Promise<RegressionEnvelope> {
  const env = startEnvelope("regression", input.attemptId);
  if (input.command === null || input.command.trim() === "") {
    return env.finish({
      overall_result: "skipped",
      green_condition_alignment: "not_applicable",
      summary: NO_TEST_COMMAND_SUMMARY,
      evidence_refs: [],
      native_payload: { command: null, skip_reason: "no_test_command" },
    });
  }
  const baseline = input.baseline;
  if (!baseline) {
    return env.finish({
      overall_result: "error",
      green_condition_alignment: "unknown",
      summary:
        "no baseline of the test suite on base was taken, so regressions cannot be judged (run takeRegressionBaseline first)",
      evidence_refs: [],
      native_payload: { command: input.command },
    });
  }

  if (baseline.command !== input.command) {
    return env.finish({
      overall_result: "error",
      green_condition_alignment: "unknown",
      summary: `the baseline ran \`${baseline.command}\` but this attempt would run \`${input.command}\`; take the baseline again with the same command`,
      evidence_refs: [baseline.logPath],
      native_payload: { command: input.command, baseline_command: baseline.command },
    });
  }

  const run = await runVerifierCommand({ ...input, command: input.command, cwd: input.worktree });
  const refs = [input.logPath, baseline.logPath];
  const cannotRun =
    run.failure ?? (commandMissing(run) ? `\`${input.command}\` was not found (exit ${run.exitCode})` : null);
  const common = {
    command: input.command,
    exit_code: run.exitCode,
    baseline_exit_code: baseline.exitCode,
    output_excerpt: run.excerpt,
    output_truncated: run.outputTruncated,
  };
  if (cannotRun) {
    return env.finish({
      overall_result: "error",
      green_condition_alignment: "unknown",
      summary: `test suite could not run: ${cannotRun}`,
      evidence_refs: refs,
      native_payload: common,
    });
  }

  const verdict = compare(baseline, run.exitCode, run.outputTruncated ? null : parseTestResults(run.output));
  return env.finish({
    overall_result: verdict.pass ? "pass" : "fail",
    green_condition_alignment: "not_applicable",
    summary: verdict.summary,
    evidence_refs: refs,
    native_payload: { ...common, ...verdict.payload },
  });
}

/** What a comparison adds to the run's common payload fields. */
type ComparisonPayload = RegressionComparedPayload extends infer P
  ? P extends unknown
    ? Omit<P, "command" | "exit_code" | "baseline_exit_code" | "output_excerpt" | "output_truncated">
    : never
  : never;

interface Comparison {
  pass: boolean;
  summary: string;
  payload: ComparisonPayload;
}

function compare(
  baseline: RegressionBaseline,
  exitCode: number | null,
  now: Map<string, TestOutcome> | null,
): Comparison {
  const exit = exitCode === null ? "was killed" : `exit ${exitCode}`;
  if (!baseline.ran) {
    const green = exitCode === 0;
    return {
      pass: green,
      summary: green
        ? `the suite passes now (exit 0); the baseline could not run (${baseline.error ?? "unknown reason"})`
        : `the suite fails now (${exit}) and the baseline could not run (${baseline.error ?? "unknown reason"}), so nothing shows the failures predate this change`,
      payload: { compared: "exit_code" },
    };
  }
  if (baseline.tests && now) return comparePerTest(baseline.tests, baseline.exitCode, exitCode, now);

  const payload: ComparisonPayload = {
    compared: "exit_code",
    per_test_unavailable: baseline.tests ? "current run" : "baseline",
  };
  if (baseline.exitCode === 0) {
    return exitCode === 0
      ? {
          pass: true,
          summary:
            "the suite was green on base and is green now (compared by exit code; per-test results were not parseable)",
          payload,
        }
      : {
          pass: false,
          summary: `the suite was green on base (exit 0) and is red now (${exit}); per-test results were not parseable`,
          payload,
        };
  }
  return { pass: false, summary: "baseline was red and results could not be compared per test", payload };
}

function comparePerTest(
  base: Record<string, TestOutcome>,
  baseExit: number | null,
  exitCode: number | null,
  now: Map<string, TestOutcome>,
): Comparison {
  const regressions: Array<{ name: string; now: "fail" | "missing" }> = [];
  const newlyPassing: string[] = [];
  const stillFailing: string[] = [];
  for (const [name, was] of Object.entries(base)) {
    const is = now.get(name);
    if (was === "pass" && is !== "pass") regressions.push({ name, now: is === "fail" ? "fail" : "missing" });
    if (was === "fail" && is === "pass") newlyPassing.push(name);
    if (was === "fail" && is === "fail") stillFailing.push(name);
  }
  const newFailures = [...now].filter(([name, is]) => is === "fail" && !(name in base)).map(([name]) => name);
  const payload: ComparisonPayload = {
    compared: "per_test",
    tests_on_base: Object.keys(base).length,
    tests_now: now.size,
    regressions,
    newly_passing: newlyPassing,
    still_failing: stillFailing,
    new_failures: newFailures,
  };

  if (regressions.length > 0) {
    const named = regressions.map((r) => `${r.name} (${r.now === "fail" ? "now failing" : "now missing"})`);
    return {
      pass: false,
      summary: `${regressions.length} test(s) green on base are not green now: ${nameList(named)}`,
      payload,
    };
  }
  // Every test kept its result, yet the suite went red: something outside the parsed tests broke
  // (a new failing test, a lint step, a crash after the tests).
  if (baseExit === 0 && exitCode !== 0) {
    const extra = newFailures.length > 0 ? `; new failing test(s): ${nameList(newFailures)}` : "";
    return {
      pass: false,
      summary: `the suite was green on base (exit 0) and is red now (exit ${exitCode ?? "killed"})${extra}`,
      payload,
    };
  }
  const parts = [
    `no regressions: all ${Object.values(base).filter((v) => v === "pass").length} test(s) green on base are still green`,
  ];
  if (newlyPassing.length > 0) parts.push(`newly passing: ${nameList(newlyPassing)}`);
  if (stillFailing.length > 0) parts.push(`still failing as on base: ${nameList(stillFailing)}`);
  if (newFailures.length > 0) parts.push(`new failing test(s) not on base: ${nameList(newFailures)}`);
  return { pass: true, summary: parts.join("; "), payload };
}
