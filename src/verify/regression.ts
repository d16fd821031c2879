import { join, posix } from "node:path";
import type {
  RegressionComparedPayload,
  RegressionEnvelope,
} from "../artifacts/schemas/verifier-envelope.js";
import type { RepoMounts } from "../process/mount-namespace.js";
import { nameList } from "../util/markdown.js";
import { listGitFiles } from "../workspace/index.js";
import { checkoutRunMark, checkoutUntouchedSince } from "./checkout-run-ledger.js";
import {
  type ConsoleCommand,
  everyTestConsoleCommand,
  pluginNotImported,
  runOnConsole,
} from "./console-run.js";
import { startEnvelope } from "./envelope.js";
import { expectedFailureFindings, type MarkedSourceChange } from "./expected-failure-markers.js";
import { isPytestConfigName, PYTEST_CONFIG_FILES, pytestConfigOf, pytestSectionOf } from "./pytest-setup.js";
import {
  type CanariedReportRun,
  canaryNextTo,
  type RegressionCanaryPin,
  type RegressionCanaryStatus,
  runWithRegressionCanary,
  STOPPED_BEFORE_THE_CANARY,
} from "./regression-canary.js";
import {
  type ReportRunInput,
  type RunnerInvocation,
  reportPathFor,
  reportUnsupported,
  resolveInvocation,
} from "./report-run.js";
import { commandMissing, FULL_OUTPUT_CAP_BYTES } from "./run-command.js";
import { notNamedByScope } from "./scope-paths.js";
import { filesTheTestCommandNames } from "./test-command-names.js";
import { saysWhatTheTestCommandRuns } from "./test-command-recipes.js";
import {
  isRunnerConfig,
  nestedPackageTestConfigs,
  packageTestConfig,
  packageTestConfigOrNone,
  recordedValue,
} from "./test-paths.js";
import { compareReports, type TestReport, unreadableReport } from "./test-reports/index.js";
import {
  outcomesOf,
  parseTestTally,
  sharedNamePasses,
  type TestOutcome,
  type TestTally,
} from "./test-results.js";

/** The project's test suite on the untouched base: what "no regression" is measured against. */
export interface RegressionBaseline {
  command: string;
  /** False when the command produced no verdict (not found, timeout, spawn failure). */
  ran: boolean;
  exitCode: number | null;
  /** Per-test outcomes, or null when the output could not be parsed (or was too large to parse whole). */
  tests: Record<string, TestOutcome> | null;
  /**
   * For each name of `tests` that more than one test has (a console names tests by their last
   * title): how many of them passed on base. Each attempt must pass at least as many.
   */
  sameNamePasses?: Record<string, number> | null;
  /** Why it did not run, or null. */
  error: string | null;
  logPath: string;
  /** The runner and script pinned from the base's package.json; verification runs exactly this. */
  invocation?: RunnerInvocation | null;
  /** The runner's complete report on base (full test identities), or null (stdout comparison). */
  report?: TestReport | null;
  /** The base's test setup in package.json (scripts, jest/mocha/ava config), as JSON; null without package.json. */
  testConfig?: string | null;
  /** The pytest sections of the base's pytest configs, every folder (`pytestConfigOf`); null when none has one. */
  pytestConfig?: string | null;
  /** The test setup of the base's package.json files below the root (`nestedPackageTestConfigs`). */
  packageConfigs?: string | null;
  /** Where regression's canary was collected on base, or why there is none (ADR 0079). */
  canary?: RegressionCanaryPin | null;
  /**
   * What the console runs (base's and each attempt's) run instead of `command`: a runner devflow
   * knows, whose report could not be had, with its every-test arguments (`everyTestConsoleCommand`).
   */
  consoleCommand?: string | null;
  /** What `consoleCommand` adds to the environment (devflow's pytest plugin on PYTHONPATH). */
  consoleEnv?: Record<string, string> | null;
  /** Why `invocation` runs without npm's pre scripts although base's package.json has some (ADR 0085). */
  preScriptsLeftOut?: string | null;
  /** Why no attempt may be judged at all (node:test with no report, ADR 0048 amendment, stop 51). */
  refused?: string | null;
}

export interface BaselineInput {
  /** A clean checkout of base (never the coder's worktree). */
  cwd: string;
  command: string;
  timeoutMs: number;
  logPath: string;
  signal?: AbortSignal;
  /** The run's mount namespace (ADR 0031): see VerifierCommand.mounts. */
  mounts?: RepoMounts;
  /** The seam's test files: regression's canary goes next to the first pytest one (ADR 0079). */
  seamFiles?: readonly string[];
}

/** Runs the test command once on base; the caller stores the result and passes it to every attempt. */
export async function takeRegressionBaseline(input: BaselineInput): Promise<RegressionBaseline> {
  const testConfig = packageTestConfig(input.cwd);
  const tracked = await listGitFiles(input.cwd);
  const pytestConfig = pytestConfigOf(input.cwd, tracked ?? PYTEST_CONFIG_FILES);
  const packageConfigs = nestedPackageTestConfigs(input.cwd, tracked ?? []);
  const resolved = resolveInvocation(input.command, input.cwd, { throughPackageManager: true });
  // A script that names its own reporter cannot give devflow a report: straight to the console run,
  // not the whole suite (and a build its pre scripts write) twice on base.
  let noReport = resolved.kind === "runner" ? reportUnsupported(resolved.invocation) : null;
  if (resolved.kind === "runner" && noReport === null) {
    const nextTo = canaryNextTo(input.seamFiles ?? [], tracked ?? []);
    let invocation = resolved.invocation;
    const mark = checkoutRunMark(input.cwd);
    let based = await reportBaseline(invocation, input, nextTo);
    // npm's pre scripts (ADR 0085) that keep base from a report (a red lint, a build that rewrites
    // committed output, one that needs npm's own environment) cost the project the report it got
    // without them (review, stop 46): base runs once more without them, and if that gives a report
    // every attempt runs without them too, which the verdict says. Only where the first run is
    // proven to have left the checkout as it was (its overlay, ADR 0040): elsewhere a build it wrote
    // before failing would still be there, and the second run would test it, not base (review, stop
    // 46, attack 50).
    let preScriptsLeftOut: string | null = null;
    const { run: first } = based.canaried;
    const retry = !first.timedOut && !first.aborted && checkoutUntouchedSince(mark);
    if (invocation.preScripts && based.error !== null && retry) {
      const { preScripts: _left, ...without } = invocation;
      const bare = await reportBaseline(without, input, nextTo);
      if (bare.error === null) {
        preScriptsLeftOut = `npm's pre scripts were left out: base's run with them gave no complete report (${based.error})`;
        invocation = without;
        based = bare;
      }
    }
    if (based.error === null) {
      const { canaried } = based;
      return {
        command: input.command,
        ran: true,
        exitCode: canaried.run.exitCode,
        tests: null,
        error: null,
        logPath: input.logPath,
        invocation,
        report: canaried.report,
        testConfig,
        pytestConfig,
        packageConfigs,
        canary: pinOnBase(canaried.canary, nextTo, canaried.stoppedBeforeCanary),
        ...(preScriptsLeftOut ? { preScriptsLeftOut } : {}),
      };
    }
    // No usable report on base: the console parser below, labelled as such in every comparison.
    noReport = based.error;
  }
  if (resolved.kind === "runner" && resolved.invocation.runner === "node-test")
    return nodeTestWithoutReport(input, noReport ?? "unknown reason", {
      testConfig,
      pytestConfig,
      packageConfigs,
    });
  const consoleOf = (plugin: boolean) =>
    resolved.kind === "runner"
      ? everyTestConsoleCommand(resolved.invocation, input.command, input.cwd, { plugin })
      : null;
  let consoleCommand = consoleOf(true);
  const consoleRun = (c: ConsoleCommand | null) =>
    runOnConsole({ ...input, command: c?.command ?? input.command, ...(c?.env ? { env: c.env } : {}) });
  let run = await consoleRun(consoleCommand);
  // A command that sets its own PYTHONPATH hides devflow's plugin: base runs again without it (the
  // project's own stops then stay, ADR 0083), and each attempt runs what base ran.
  if (consoleCommand?.env && run.failure === null && pluginNotImported(run.output)) {
    consoleCommand = consoleOf(false);
    run = await consoleRun(consoleCommand);
  }
  const error =
    run.failure ?? (commandMissing(run) ? `\`${input.command}\` was not found (exit ${run.exitCode})` : null);
  const tally = error || run.outputTruncated ? null : parseTestTally(run.output);
  return {
    command: input.command,
    ran: error === null,
    exitCode: run.exitCode,
    tests: tally ? Object.fromEntries(outcomesOf(tally)) : null,
    sameNamePasses: tally ? sharedNamePasses(tally) : null,
    error,
    logPath: input.logPath,
    invocation: null,
    report: null,
    testConfig,
    pytestConfig,
    packageConfigs,
    consoleCommand: consoleCommand?.command ?? null,
    consoleEnv: consoleCommand?.env ?? null,
  };
}

/**
 * node:test judged from its console is refused: its test processes' reports reach the runner on a
 * stream the code under test can rewrite, and only a report run has devflow's assertion ledger to
 * tell (ADR 0048). A console has no test files to hold signed outcomes against, so rather than a
 * console verdict the ledger cannot back (stop 51, attack 58c), no verdict: base and every attempt
 * end `error` with this one-line reason.
 */
function nodeTestWithoutReport(
  input: BaselineInput,
  why: string,
  configs: Pick<RegressionBaseline, "testConfig" | "pytestConfig" | "packageConfigs">,
): RegressionBaseline {
  // On base the run is the project's own: a ledger finding there is no forgery but tests node never
  // reported, most often a test file ending its own process (review 59, attack 59c).
  const hint = why.includes("devflow's ledger")
    ? "; on base this means node did not report tests that ran: a test file that ends its own process (`process.exit` in an `after` hook) hides its tests from node's runner, and `node --test --test-force-exit` ends it without that"
    : "";
  const refused = `node:test is judged only from devflow's report, checked by its assertion ledger (ADR 0048), and none could be had: ${why}${hint}`;
  return {
    command: input.command,
    ran: false,
    exitCode: null,
    tests: null,
    error: refused,
    logPath: input.logPath,
    invocation: null,
    report: null,
    ...configs,
    refused,
  };
}

/**
 * Base's report run of `invocation` (with the canary, and once more without it when the canary
 * cost the report). `error` is null when it gave a complete report, else why not.
 */
async function reportBaseline(
  invocation: RunnerInvocation,
  input: BaselineInput,
  nextTo: string | null,
): Promise<{ canaried: CanariedReportRun; error: string | null }> {
  const reportRun = reportRunOf(invocation, input.cwd, input);
  let canaried = await runWithRegressionCanary(reportRun, nextTo);
  // The canary (or devflow's plugin, when the command sets its own PYTHONPATH) must never cost
  // the base its named report: without one the suite is judged from the console. A run that did
  // not finish (timeout, not found) is not run twice.
  if (canaried.placed && canaried.run.failure === null && !canaried.report?.complete) {
    canaried = await runWithRegressionCanary(reportRun, null);
    canaried.canary = {
      status: "not_run",
      reason:
        "the base's run with a canary gave no complete report (a command setting its own PYTHONPATH hides devflow's pytest plugin)",
    };
  }
  const { run, report } = canaried;
  const error =
    run.failure ??
    (commandMissing(run) ? `\`${canaried.command}\` was not found (exit ${run.exitCode})` : null) ??
    (report?.complete ? null : (report?.parse_errors[0] ?? "the report was incomplete"));
  return { canaried, error };
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
  /** Keys of the seam's tests pinned on base: left out of the comparison (the seam verifier judges them). */
  seamTests?: readonly string[];
  /** Files the attempt changed since base (from git): a changed test setup is a finding. */
  changedFiles?: readonly string[];
  /** The task's allowed_paths: only a file named there exactly may change the test setup. */
  allowedPaths?: readonly string[];
  /**
   * Changed files that hold an expected-failure marker now, with their text on base (ADR 0081):
   * one that gained a marker is a finding. The caller reads only those.
   */
  markedSources?: readonly MarkedSourceChange[];
  /** The run's mount namespace (ADR 0031): see VerifierCommand.mounts. */
  mounts?: RepoMounts;
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
    // No suite to re-run, but a changed runner or transform config still changes how the seam's
    // own run loads the code (stop 31: a new babel.config.js rewrote the bug away as jest loaded
    // it); that is a finding whether or not there is a test command.
    const changedSetup = runnerConfigFindings(input);
    if (changedSetup.length > 0)
      return env.finish({
        overall_result: "fail",
        green_condition_alignment: "misaligned",
        summary: changedSetup.join("; "),
        evidence_refs: [],
        native_payload: { command: null, setup_findings: changedSetup },
      });
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

  if (baseline.refused)
    return env.finish({
      overall_result: "error",
      green_condition_alignment: "unknown",
      summary: baseline.refused,
      evidence_refs: [baseline.logPath],
      native_payload: { command: input.command },
    });

  const findings = setupFindings(input, baseline);
  if (baseline.invocation && baseline.report)
    return reportRegression(
      { ...input, command: input.command },
      { ...baseline, invocation: baseline.invocation, report: baseline.report },
      findings,
    );

  const run = await runOnConsole({
    ...input,
    command: baseline.consoleCommand ?? input.command,
    cwd: input.worktree,
    ...(baseline.consoleEnv ? { env: baseline.consoleEnv } : {}),
  });
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
  if (cannotRun) return couldNotRun(env, cannotRun, refs, common);

  const verdict = compare(
    baseline,
    run.exitCode,
    run.outputTruncated ? null : parseTestTally(run.output),
    run.outputTruncated,
  );
  const pass = verdict.pass && findings.length === 0;
  return env.finish({
    overall_result: pass ? "pass" : "fail",
    green_condition_alignment: "not_applicable",
    summary: findings.length > 0 ? [...findings, verdict.summary].join("; ") : verdict.summary,
    evidence_refs: refs,
    native_payload: { ...common, ...verdict.payload, ...(findings.length > 0 ? { findings } : {}) },
  });
}

/**
 * The base's pinned runner invocation, run over the attempt's tree with the runner's report:
 * compared test by test by full identity (seam tests excluded). An incomplete report fails; it
 * never falls back to exit codes, because the baseline named its tests.
 */
async function reportRegression(
  input: RegressionVerifierInput & { command: string },
  baseline: RegressionBaseline & { invocation: RunnerInvocation; report: TestReport },
  findings: string[],
): Promise<RegressionEnvelope> {
  const env = startEnvelope("regression", input.attemptId);
  const pin = baseline.canary ?? null;
  const { run, report, command, unsupported, canary, stoppedBeforeCanary } = await runWithRegressionCanary(
    reportRunOf(baseline.invocation, input.worktree, input),
    pin?.status === "placed" ? pin.next_to : null,
  );
  // Without a pin the run had no canary for the pin's reason (or a baseline from before ADR 0079).
  // A run that stopped where base's did says so; it fails all the same (below).
  const canaryShown: RegressionCanaryStatus =
    pin?.status === "placed"
      ? pin.base_stopped_before_it && stoppedBeforeCanary
        ? { status: "not_run", reason: STOPPED_BEFORE_THE_CANARY }
        : canary
      : { status: "not_run", reason: pin?.reason ?? "the baseline pinned no canary" };
  const refs = [input.logPath, baseline.logPath];
  const common = {
    command: input.command,
    exit_code: run.exitCode,
    baseline_exit_code: baseline.exitCode,
    output_excerpt: run.excerpt,
    output_truncated: run.outputTruncated,
  };
  const cannotRun =
    run.failure ?? (commandMissing(run) ? `\`${command}\` was not found (exit ${run.exitCode})` : null);
  if (cannotRun) return couldNotRun(env, cannotRun, refs, common);
  const current =
    report ?? unreadableReport(baseline.invocation.runner, `no report could be asked for: ${unsupported}`);
  const seamKeys = input.seamTests ?? [];
  const result = compareReports(baseline.report, current, { seamKeys });
  if (result.kind === "baseline_unusable") {
    return env.finish({
      overall_result: "error",
      green_condition_alignment: "unknown",
      summary: result.reason,
      evidence_refs: refs,
      native_payload: common,
    });
  }
  const r = result.regression;
  const problems = [...findings, ...r.reasons];
  // Collected and failing on base, the canary not failing now is the attempt's doing: whatever
  // else this report says cannot be believed, so it comes first.
  if (canaryShown.status === "tampered") problems.unshift(`tamper: ${canaryShown.reason}`);
  else if (pin?.status === "placed" && canaryShown.status === "not_run")
    problems.unshift(
      `the regression canary collected next to ${pin.next_to} on base could not run on this attempt: ${canaryShown.reason}${pin.base_stopped_before_it ? " (base's run stopped before it too)" : ""}`,
    );
  const baseErrors = new Set(baseline.report.run_errors);
  const newRunErrors = current.run_errors.filter((e) => !baseErrors.has(e));
  if (newRunErrors.length > 0) problems.push(`new run error(s) outside any test: ${newRunErrors.join("; ")}`);
  // Every test kept its result, yet the suite went red: something outside the tests broke.
  if (problems.length === 0 && baseline.exitCode === 0 && run.exitCode !== 0)
    problems.push(`the suite was green on base (exit 0) and is red now (exit ${run.exitCode ?? "killed"})`);
  const passedOnBase = baseline.report.tests.filter(
    (t) => t.status === "pass" && !seamKeys.includes(t.key),
  ).length;
  const parts = [
    `no regressions: all ${passedOnBase} test(s) green on base are still green (by full test identity, ${baseline.invocation.runner} report)`,
  ];
  if (baseline.preScriptsLeftOut) parts.push(baseline.preScriptsLeftOut);
  const managed = throughPackageManager(baseline.invocation);
  if (managed) parts.push(managed);
  if (r.newly_passing.length > 0)
    parts.push(`newly passing: ${nameList(r.newly_passing.map((t) => t.name))}`);
  if (r.still_failing.length > 0)
    parts.push(`still failing as on base: ${nameList(r.still_failing.map((t) => t.name))}`);
  return env.finish({
    overall_result: problems.length === 0 ? "pass" : "fail",
    green_condition_alignment: "not_applicable",
    summary: problems.length === 0 ? parts.join("; ") : problems.join("; "),
    evidence_refs: refs,
    native_payload: {
      ...common,
      compared: "per_test" as const,
      source: "reporter" as const,
      ran_command: command,
      tests_on_base: baseline.report.tests.length,
      tests_now: current.tests.length,
      regressions: r.regressions.map((t) => ({ name: t.name, now: t.now === "pass" ? "fail" : t.now })),
      newly_passing: r.newly_passing.map((t) => t.name),
      still_failing: r.still_failing.map((t) => t.name),
      new_failures: r.new_failures.map((t) => t.name),
      seam_tests_excluded: seamKeys.length,
      ...(baseline.preScriptsLeftOut ? { pre_scripts_left_out: baseline.preScriptsLeftOut } : {}),
      ...(managed ? { through_package_manager: managed } : {}),
      ...(baseline.invocation.runner === "pytest" ? { canary: canaryShown } : {}),
      ...(problems.length > 0 ? { findings: problems } : {}),
    },
  });
}

/**
 * A changed test setup (.npmrc, a runner config file, package.json scripts or runner keys, pytest's
 * section of a config, a file saying what the test command runs) is a finding that fails
 * regression, unless the task's scope names that file exactly.
 */
function setupFindings(input: RegressionVerifierInput, baseline: RegressionBaseline): string[] {
  const findings: string[] = [
    ...runnerConfigFindings(input),
    ...expectedFailureFindings(input.markedSources ?? []),
  ];
  const isRecipe = saysWhatTheTestCommandRuns(input.command ?? "", input.worktree, baseScripts(baseline));
  for (const file of changedOutsideScope(input)) {
    if (isRunnerConfig(file)) continue;
    if (isRecipe(file)) {
      findings.push(
        `the attempt changed ${file}, which says what the test command \`${input.command}\` runs, and the task's scope does not name it; the suite must run as on base`,
      );
      continue;
    }
    if (file === "package.json" && baseline.testConfig !== undefined) {
      if (packageTestConfig(input.worktree) !== baseline.testConfig)
        findings.push(
          "the attempt changed the test setup in package.json (scripts or runner config), which the task's scope does not name; the suite must run as on base",
        );
    } else if (file.endsWith("/package.json") && baseline.packageConfigs !== undefined) {
      const now = packageTestConfigOrNone(join(input.worktree, posix.dirname(file)));
      if (now !== recordedValue(baseline.packageConfigs, file))
        findings.push(
          `the attempt changed the test setup in ${file} (scripts or runner config), which the task's scope does not name; the suite must run as on base`,
        );
    } else if (isPytestConfigName(file) && baseline.pytestConfig !== undefined) {
      // The rest of a pyproject.toml or setup.cfg (a dependency) is the project's and may change.
      if (pytestSectionOf(input.worktree, file) !== recordedValue(baseline.pytestConfig, file))
        findings.push(
          `the attempt changed pytest's configuration in ${file}, which the task's scope does not name; the suite must run as on base`,
        );
    }
  }
  return findings;
}

/** The runner, package-manager and transform config files the attempt changed that the scope does not name. */
function runnerConfigFindings(input: RegressionVerifierInput): string[] {
  return changedOutsideScope(input)
    .filter(isRunnerConfig)
    .map((file) => {
      const what = /\.npmrc$|\.yarnrc/.test(file)
        ? "package manager config (node-options, preloads)"
        : "test runner config";
      return `the attempt changed ${file} (${what}), which the task's scope does not name; the suite must run as on base`;
    });
}

/** The files the attempt changed that the task's allowed_paths do not name exactly. */
function changedOutsideScope(input: RegressionVerifierInput): string[] {
  return notNamedByScope(input.changedFiles ?? [], input.allowedPaths ?? []);
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
  now: TestTally | null,
  outputTruncated: boolean,
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
  if (baseline.tests && now)
    return comparePerTest(baseline.tests, baseline.sameNamePasses ?? {}, baseline.exitCode, exitCode, now);

  const payload: ComparisonPayload = {
    compared: "exit_code",
    per_test_unavailable: baseline.tests ? "current run" : "baseline",
  };
  // The baseline named its tests and this run names none: an exit code cannot stand in for them,
  // or a suite cut short by a `process.exit(0)` at load (or output past the cap) would pass.
  if (baseline.tests) {
    const named = Object.keys(baseline.tests).length;
    const why = outputTruncated
      ? `its output passed the ${FULL_OUTPUT_CAP_BYTES / (1024 * 1024)} MiB capture cap, so it was not read`
      : "its output names no test (empty, or in no format devflow reads)";
    return {
      pass: false,
      summary: `the suite named ${named} test(s) on base but this run cannot be compared per test: ${why}; ${exit} alone does not show those tests still pass`,
      payload,
    };
  }
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
  baseSameNamePasses: Record<string, number>,
  baseExit: number | null,
  exitCode: number | null,
  nowTally: TestTally,
): Comparison {
  const now = outcomesOf(nowTally);
  const regressions: Array<{ name: string; now: "fail" | "missing" }> = [];
  const newlyPassing: string[] = [];
  const stillFailing: string[] = [];
  for (const [name, was] of Object.entries(base)) {
    const is = now.get(name);
    const shared = baseSameNamePasses[name];
    const passesNow = nowTally.get(name)?.pass ?? 0;
    // Tests sharing a name: fewer of them pass than on base, whatever the merged outcome says (a
    // known failure among them no longer hides a new one).
    if (shared !== undefined && passesNow < shared)
      regressions.push({
        name: `${name} (${shared - passesNow} of the ${shared} tests of that name green on base)`,
        now: (nowTally.get(name)?.fail ?? 0) > 0 ? "fail" : "missing",
      });
    else if (was === "pass" && is !== "pass")
      regressions.push({ name, now: is === "fail" ? "fail" : "missing" });
    if (was === "fail" && is === "pass") newlyPassing.push(name);
    if (was === "fail" && is === "fail") stillFailing.push(name);
  }
  // Failing now and not on base (new, or never reached by a base run that stopped at its first
  // failure) is a broken test all the same (ADR 0080).
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
  if (newFailures.length > 0)
    return {
      pass: false,
      summary: `${newFailures.length} test(s) fail now that did not fail on base: ${nameList(newFailures)}`,
      payload,
    };
  // Every test kept its result, yet the suite went red: something outside the parsed tests broke
  // (a lint step, a crash after the tests).
  if (baseExit === 0 && exitCode !== 0)
    return {
      pass: false,
      summary: `the suite was green on base (exit 0) and is red now (exit ${exitCode ?? "killed"})`,
      payload,
    };
  const parts = [
    `no regressions: all ${Object.entries(base).reduce(
      (n, [name, was]) => n + (baseSameNamePasses[name] ?? (was === "pass" ? 1 : 0)),
      0,
    )} test(s) green on base are still green`,
  ];
  if (newlyPassing.length > 0) parts.push(`newly passing: ${nameList(newlyPassing)}`);
  if (stillFailing.length > 0) parts.push(`still failing as on base: ${nameList(stillFailing)}`);
  return { pass: true, summary: parts.join("; "), payload };
}

/** The one envelope for a suite that could not run: an error, never a pass or a fail. */
function couldNotRun(
  env: ReturnType<typeof startEnvelope<"regression">>,
  cannotRun: string,
  refs: string[],
  common: RegressionEnvelope["native_payload"],
): RegressionEnvelope {
  return env.finish({
    overall_result: "error",
    green_condition_alignment: "unknown",
    summary: `test suite could not run: ${cannotRun}`,
    evidence_refs: refs,
    native_payload: common,
  });
}

/** On base, a canary that did not fail means pytest does not collect it there: the run has none. */
function pinOnBase(
  canary: RegressionCanaryStatus,
  nextTo: string | null,
  stoppedBeforeCanary: boolean,
): RegressionCanaryPin {
  if (canary.status === "failed_as_required" && nextTo !== null) return { status: "placed", next_to: nextTo };
  // pytest was to run it, last, and base's run ended first: placed all the same, so an attempt's
  // run must get to its end and show it failing. Else a stop base's own code asks for after a
  // failure base has would cut both runs at the same place, and a break after it would pass.
  if (stoppedBeforeCanary && nextTo !== null)
    return { status: "placed", next_to: nextTo, base_stopped_before_it: true };
  // Missing on base: not collected there, or the suite stopped before it (`-x` on a red base).
  if (canary.status === "tampered")
    return {
      status: "not_run",
      reason: `on base, pytest did not run a canary placed next to ${nextTo} to its failure (not collected there, or the run stopped before it ran last)`,
    };
  return { status: "not_run", reason: canary.reason ?? "no canary" };
}

/** The pinned invocation's report run in `cwd`, with the report next to the input's log. */
function reportRunOf(
  invocation: RunnerInvocation,
  cwd: string,
  input: { timeoutMs: number; logPath: string; signal?: AbortSignal; mounts?: RepoMounts },
): ReportRunInput {
  return {
    invocation,
    cwd,
    timeoutMs: input.timeoutMs,
    logPath: input.logPath,
    reportPath: reportPathFor(input.logPath),
    runEveryTest: true,
    ...(input.signal ? { signal: input.signal } : {}),
    ...(input.mounts ? { mounts: input.mounts } : {}),
  };
}

/**
 * One regression verdict from the run on the attempt's tree (`own`, which passed) and the run once
 * more with base's copy of the test configuration the attempt changed (`underBase`, ADR 0082):
 * `own` when that run passes too, else that run's envelope, its summary saying which configuration
 * it was run with, and both runs' evidence.
 */
export function withBaseTestConfig(
  own: RegressionEnvelope,
  underBase: RegressionEnvelope,
  configFromBase: readonly string[],
): RegressionEnvelope {
  if (underBase.overall_result === "pass") return own;
  return {
    ...underBase,
    duration_ms: own.duration_ms + underBase.duration_ms,
    summary: `with base's copy of the test configuration the attempt changed (${configFromBase.join(", ")}), the suite does not pass as on base: ${underBase.summary}`,
    evidence_refs: [...new Set([...own.evidence_refs, ...underBase.evidence_refs])],
  };
}

/**
 * The files that configure how `command` runs the suite, beyond what `configuresTests` knows by name
 * (ADR 0082): what the command or base's package.json test scripts name (`--config ci/x.mjs`), and
 * the recipe files and scripts it runs (`saysWhatTheTestCommandRuns`, read in `dir`). Base's scripts
 * come from the baseline's record, so an attempt cannot rename them away.
 */
export function suiteConfigurationFiles(
  command: string,
  baseline: RegressionBaseline | null,
  dir: string,
): (file: string) => boolean {
  const scripts = baseScripts(baseline);
  const named = filesTheTestCommandNames(command, scripts);
  const runs = saysWhatTheTestCommandRuns(command, dir, scripts);
  return (file) => named(file) || runs(file);
}

/** package.json's scripts on base, from the baseline's record of its test setup (`packageTestConfig`). */
function baseScripts(baseline: RegressionBaseline | null): Record<string, unknown> | null {
  try {
    const [scripts] = JSON.parse(baseline?.testConfig ?? "null") as [unknown];
    return typeof scripts === "object" && scripts !== null ? (scripts as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** What the verdict says of a suite the package manager ran (ADR 0088), or null. */
function throughPackageManager(invocation: RunnerInvocation): string | null {
  const managed = invocation.packageManager;
  return managed
    ? `run as \`${managed.command}\` with base's scripts, the package manager deciding what runs: ${managed.why}`
    : null;
}
