import { existsSync, lstatSync } from "node:fs";
import { join } from "node:path";
import type { SeamEnvelope, SeamPayload } from "../artifacts/schemas/verifier-envelope.js";
import type { RepoMounts } from "../process/mount-namespace.js";
import { EXIT_CODE_ONLY_CAVEAT } from "./completion-gate.js";
import { startEnvelope } from "./envelope.js";
import { outsideNamedLoads } from "./python-outside-loads.js";
import { type RunnerInvocation, reportPathFor, resolveInvocation, runWithReport } from "./report-run.js";
import { commandMissing, runVerifierCommand, type VerifierCommandRun } from "./run-command.js";
import { notNamedByScope, scopePath } from "./scope-paths.js";
import { isCanaryTest, judgeCanary, readReportText, withSeamCanary } from "./seam-canary.js";
import { openedExposure, traceStatus, tracesSeamRuns } from "./seam-opened-files.js";
import { outsideExposure } from "./seam-outside-files.js";
import { computedLoadExposure, mockExposure, sharedProcessExposure } from "./seam-shared-process.js";
import { isTestPath, repoFile } from "./test-paths.js";
import { failingKeys } from "./test-reports/index.js";

export interface Seam {
  /** Shell command run in the worktree root; exits non-zero while the problem exists. */
  command: string;
  files: string[];
}

export interface SeamVerifierInput {
  worktree: string;
  seam: Seam;
  expectedGreenCondition: string | null;
  timeoutMs: number;
  logPath: string;
  attemptId: string;
  signal?: AbortSignal;
  /** Keys of the seam's tests pinned on base (named failing there); empty: judged by exit code. */
  tests?: readonly string[];
  /** The runner invocation pinned on base; with `tests`, each run asks it for its report. */
  invocation?: RunnerInvocation | null;
  /** How many times to run the seam (default 1; the lane's default is 3). */
  runs?: number;
  /** Each run's mount namespace (ADR 0031): see VerifierCommand.mounts. */
  mounts?: RepoMounts;
  /** Every file the attempt changed since base: test code besides the seam's must not share its process. */
  changedFiles?: readonly string[];
  /**
   * The paths the task's scope names exactly (pinned at readiness). A regular file named so is what
   * the request is about (a setup file the user asked to change): the opened-files check does not
   * count the run opening it as reaching changed test code (ADR 0019 amendment 3, ADR 0072).
   */
  scopeNamed?: readonly string[];
  /** The seam's files and helpers that load test files by a computed name (pinned on base). */
  computedLoaders?: readonly string[];
  /**
   * Test configuration files the attempt changed that `worktree` holds as on base (ADR 0074): recorded,
   * and named in a red verdict so the repair is aimed at the code, not the configuration.
   */
  testConfigFromBase?: readonly string[];
  /**
   * When the coder could first have run (the contract's pinning, ms since the epoch): code or
   * configuration outside the checkout a traced seam run loads that changed since is a finding
   * (ADR 0074). Absent for a task pinned before the check existed.
   */
  outsideSinceMs?: number;
  /**
   * The Python module files the attempt added (not in base's tree): one a traced run loaded that no
   * file of the repository it loaded imports by name was loaded by code outside (ADR 0076, part 2).
   */
  addedPythonModules?: readonly string[];
  /** The paths the attempt changed that are symlinks now: one Python was loaded through is judged so too. */
  changedLinks?: readonly string[];
  /** Folders besides `worktree` the attempt could write: devflow never runs an interpreter from them. */
  attemptDirs?: readonly string[];
}

/** The seam verifier's input with what it derives once, before any run. */
interface JudgedSeam extends SeamVerifierInput {
  /** The changed files the opened-files check counts: all but the scope-named regular files. */
  readonly changedOutsideScopeNames: readonly string[];
}

/**
 * The changed files the opened-files check counts. Regression (stop 35): vitest seams became
 * traced in stop 34, and a request about the setup file vitest's config runs (scope naming
 * `test/setup.js`) was refused because the run opened it. Only that check learns of the exemption,
 * and only for a path that is a regular file in the checkout (review, stop 35): exempting a scope
 * name that is a link let a coder replace a scope-named folder (`test/cases`) with a link to new
 * case files expecting the bug, and exempting it from the mock, computed-load and shared-process
 * checks let a scope-named test file replace the code under test inside a whole-suite seam's process.
 */
function changedOutsideScopeNames(input: SeamVerifierInput): readonly string[] {
  const changed = input.changedFiles ?? [];
  if (!input.scopeNamed?.length) return changed;
  const notNamed = new Set(notNamedByScope(changed, input.scopeNamed));
  return changed.filter(
    (file) => notNamed.has(scopePath(file)) || !isRegularFile(join(input.worktree, file)),
  );
}

function isRegularFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

/** Why a seam with pinned tests or an exit-code seam is judged the way it is, per run. */
interface SeamRunVerdict {
  /** green: every pinned test passed by name (or exit 0 for an exit-code seam); red; error: no verdict. */
  result: "green" | "red" | "error";
  reason: string;
  run: VerifierCommandRun;
  /** What the seam canary showed in this run (ADR 0028). */
  canary: CanaryRunStatus;
  /** A pinned test that passed in this run and failed when loaded again in it (the canary's copy). */
  flake?: string;
}

type CanaryRunStatus = NonNullable<SeamPayload["canary"]>;
const NO_RUNNER_CANARY: CanaryRunStatus = {
  status: "not_run",
  reason: "no runner is pinned: the seam is judged by exit code, so there is no test to add a canary to",
};

/**
 * devflow's own re-run of the seam after an attempt, `runs` times. With pinned seam tests (named
 * failing on base) every run must report each of them passing by name and exit 0; a missing,
 * skipped or unparsed test, or a report that was not written, is red, whatever the exit code. A
 * seam without pinned tests (not a recognised runner) is judged by exit code, and says so. A red
 * run among green ones is a flake finding.
 */
export async function runSeamVerifier(input: SeamVerifierInput): Promise<SeamEnvelope> {
  return judgeSeamRuns({ ...input, changedOutsideScopeNames: changedOutsideScopeNames(input) });
}

/** runSeamVerifier's runs and verdict. */
async function judgeSeamRuns(input: JudgedSeam): Promise<SeamEnvelope> {
  const env = startEnvelope("seam", input.attemptId);
  const tests = input.tests ?? [];
  const invocation = input.invocation ?? null;
  const runs = Math.max(1, Math.floor(input.runs ?? 1));
  const named = tests.length > 0 && invocation !== null;
  const verdicts: SeamRunVerdict[] = [];
  const evidence_refs: string[] = [];
  // What the seam's processes open is recorded from outside them (ADR 0072), where the runner allows.
  const traced = tracesSeamRuns(named ? invocation?.runner : undefined);
  // Decided by the files alone, not by a run: one run shows it, repeating it shows nothing more.
  const exposedByFiles =
    computedLoadExposure({
      checkoutDir: input.worktree,
      loaders: input.computedLoaders ?? [],
      seamFiles: input.seam.files,
      changedFiles: input.changedFiles ?? [],
    }) ??
    mockExposure({
      seamFiles: input.seam.files,
      changedFiles: input.changedFiles ?? [],
      runner: invocation?.runner,
    });
  for (let i = 1; i <= runs; i++) {
    const logPath = i === 1 ? input.logPath : input.logPath.replace(/(\.log)?$/, `.run-${i}.log`);
    evidence_refs.push(logPath);
    // Before anything of the run: a file born after it is the run's own (outsideExposure).
    const runStartMs = Date.now();
    const verdict = named
      ? await namedRun(input, invocation, tests, logPath, traced, runStartMs)
      : await exitCodeRun(
          await runVerifierCommand({
            command: input.seam.command,
            cwd: input.worktree,
            timeoutMs: input.timeoutMs,
            logPath,
            traceOpens: traced,
            ...(input.signal ? { signal: input.signal } : {}),
            ...(input.mounts ? { mounts: input.mounts } : {}),
          }),
          input.seam.command,
          input,
          runStartMs,
          logPath,
        );
    if (exposedByFiles !== null && verdict.result !== "error") {
      verdicts.push({ ...verdict, result: "red", reason: exposedByFiles });
      break;
    }
    verdicts.push(verdict);
    // No verdict (not found, timeout) will not change by repeating it.
    if (verdict.result === "error") break;
  }
  const last = verdicts[verdicts.length - 1];
  if (!last) throw new Error("runSeamVerifier: no run");
  const green = verdicts.filter((v) => v.result === "green").length;
  const red = verdicts.filter((v) => v.result === "red");
  const findings: string[] = [];
  const flakyLoad = verdicts.find((v) => v.flake)?.flake;
  if (green > 0 && red.length > 0)
    findings.push(`flake: ${red.length} of ${verdicts.length} seam runs were red (${red[0]?.reason})`);
  else if (flakyLoad) findings.push(`flake: ${flakyLoad}`);
  // One tampered run is enough: a tamper may be keyed on chance to pass some runs.
  const canary =
    verdicts.find((v) => v.canary.status === "tampered")?.canary ??
    verdicts.find((v) => v.canary.status === "not_run")?.canary ??
    last.canary;
  if (canary.status === "tampered") findings.push(`tamper: ${canary.reason}`);
  const payload: SeamPayload = {
    command: input.seam.command,
    files: input.seam.files,
    expected_green_condition: input.expectedGreenCondition,
    ...runFacts((red[0] ?? last).run),
    evidence: named ? "named_tests" : "exit_code",
    tests: [...tests],
    runs: verdicts.map((v) => ({ result: v.result, exit_code: v.run.exitCode, reason: v.reason })),
    findings,
    canary,
    load_trace: traceStatus(
      (verdicts.find((v) => v.run.openTrace?.kind === "broken") ?? last).run.openTrace,
      traced,
    ),
    ...(input.testConfigFromBase?.length ? { test_config_from_base: [...input.testConfigFromBase] } : {}),
  };
  const condition = input.expectedGreenCondition ? `: ${input.expectedGreenCondition}` : "";
  const times = verdicts.length === 1 ? "" : ` in all ${verdicts.length} runs`;
  const errored = verdicts.find((v) => v.result === "error");
  if (errored) {
    return env.finish({
      overall_result: "error",
      green_condition_alignment: "unknown",
      summary: errored.reason,
      evidence_refs,
      native_payload: payload,
    });
  }
  if (red.length === 0) {
    const how = named
      ? `its ${tests.length} pinned test(s) passed by name${times}`
      : `\`${input.seam.command}\` exited 0${times}`;
    const caveat = named ? "" : ` (${EXIT_CODE_ONLY_CAVEAT})`;
    return env.finish({
      overall_result: "pass",
      green_condition_alignment: "aligned",
      summary: `seam is green: ${how}${condition}${caveat}`,
      evidence_refs,
      native_payload: payload,
    });
  }
  const fromBase = input.testConfigFromBase ?? [];
  const first = `${red[0]?.reason ?? ""}${fromBase.length > 0 ? ` (${testConfigNote(fromBase)})` : ""}`;
  const summary =
    green > 0
      ? `seam is flaky: ${red.length} of ${verdicts.length} runs were red: ${first}`
      : flakyLoad && canary.status !== "tampered"
        ? `seam is flaky: ${flakyLoad}`
        : `seam is still red: ${first}${input.expectedGreenCondition ? `; expected green condition not met: ${input.expectedGreenCondition}` : ""}`;
  return env.finish({
    overall_result: "fail",
    green_condition_alignment: "misaligned",
    summary,
    evidence_refs,
    native_payload: payload,
  });
}

/** Why a red seam may differ from what the coder saw in its own checkout (ADR 0074). */
const testConfigNote = (files: readonly string[]): string =>
  `judged with base's test configuration: the attempt's changes to ${files.join(", ")} were not used; fix the code, not how the tests run`;

async function namedRun(
  input: JudgedSeam,
  invocation: RunnerInvocation,
  tests: readonly string[],
  logPath: string,
  traced: boolean,
  runStartMs: number,
): Promise<SeamRunVerdict> {
  // The canary goes next to the pinned tests' files; tape's TAP names no file, so the seam's own.
  const keyed = tests.map(fileOfKey).filter((f) => f !== "");
  const seamTestFiles = keyed.length > 0 ? keyed : input.seam.files;
  return withSeamCanary(input.worktree, invocation, seamTestFiles, async (canary) => {
    const reportPath = reportPathFor(logPath);
    const { run, report, unsupported } = await runWithReport({
      invocation: canary.kind === "placed" ? canary.invocation : invocation,
      cwd: input.worktree,
      timeoutMs: input.timeoutMs,
      logPath,
      reportPath,
      traceOpens: traced,
      ...(input.signal ? { signal: input.signal } : {}),
      ...(input.mounts ? { mounts: input.mounts } : {}),
    });
    let canaryFacts: { canary: CanaryRunStatus } = {
      canary:
        canary.kind === "placed"
          ? { status: "failed_as_required", reason: null }
          : { status: "not_run", reason: canary.reason },
    };
    const cannotRun =
      run.failure ?? (commandMissing(run) ? notFoundMessage(invocation.script, run.exitCode) : null);
    if (cannotRun) return { result: "error", reason: cannotRun, run, ...canaryFacts };
    if (!report)
      return {
        result: "red",
        reason: `no ${invocation.runner} report could be asked for: ${unsupported}`,
        run,
        ...canaryFacts,
      };
    const byKey = new Map(report.tests.map((t) => [t.key, t] as const));
    // Every copy of a pinned test must pass too: node:test reports the seam's tests that the
    // canary's own load of the seam file registers again under the seam file, numbered "#n".
    const copyStatus = (key: string) =>
      report.tests.find((t) => t.status !== "pass" && unnumbered(t.key) === unnumbered(key))?.status;
    const own = tests.map((key) => ({ key, status: byKey.get(key)?.status ?? "missing" }));
    const flakyCopies = own
      .filter((t) => t.status === "pass" && copyStatus(t.key) !== undefined)
      .map((t) => nameOfKey(t.key));
    const notPassing = own
      .map((t) => (t.status === "pass" ? { ...t, status: copyStatus(t.key) ?? "pass" } : t))
      .filter((t) => t.status !== "pass")
      .map((t) => `${nameOfKey(t.key)} (${t.status})`);
    const flake =
      flakyCopies.length > 0
        ? `pinned seam test(s) passed and failed in the same run, loaded twice: ${flakyCopies.join(", ")}`
        : undefined;
    const problems: string[] = [];
    // The canary's verdict comes first: when it did not fail, nothing else in this report can be believed.
    if (canary.kind === "placed") {
      const verdict = judgeCanary(canary, report, await readReportText(reportPath), run.exitCode);
      if (!verdict.ok) {
        problems.push(verdict.reason);
        canaryFacts = { canary: { status: "tampered", reason: verdict.reason } };
      }
    }
    if (!report.complete)
      problems.push(
        `the ${invocation.runner} report is incomplete (${report.parse_errors.join("; ") || "unknown reason"})`,
      );
    if (notPassing.length > 0)
      problems.push(`pinned seam test(s) not reported passing: ${notPassing.join(", ")}`);
    if (report.run_errors.length > 0) problems.push(`run errors: ${report.run_errors.join("; ")}`);
    const exposure = sharedProcessExposure({
      checkoutDir: input.worktree,
      // What ran: the canary's arguments (the seam's files) narrow a command that named none.
      invocation: canary.kind === "placed" ? canary.invocation : invocation,
      report,
      canaryFiles: canary.kind === "placed" ? canary.files : [],
      seamFiles: input.seam.files,
      changedFiles: input.changedFiles ?? [],
    });
    if (exposure !== null) problems.push(exposure);
    const opened = openedBy(input, run, canary.kind === "placed" ? canary.files : []);
    if (opened !== null) problems.push(opened);
    const outside = outsideBy(input, run, runStartMs, logPath);
    if (outside !== null) problems.push(outside);
    const unasked = await unaskedBy(input, run, canary.kind === "placed" ? canary.files : []);
    if (unasked !== null) problems.push(unasked);
    if (canary.kind === "placed") {
      // The failing canary makes the runner exit non-zero, so exit 0 is no longer the sign of a
      // clean run: every test besides the canary's must not fail.
      // Pinned tests and their copies are judged above.
      const pinned = new Set(tests.map(unnumbered));
      const failing = report.tests
        .filter((t) => t.status === "fail" && !isCanaryTest(canary, t))
        .map((t) => unnumbered(t.key))
        .filter((key) => !pinned.has(key));
      if (failing.length > 0)
        problems.push(`test(s) failing in the seam run: ${[...new Set(failing)].map(nameOfKey).join(", ")}`);
    } else if (run.exitCode !== 0) problems.push(`\`${invocation.script}\` ${howEnded(run)}`);
    return problems.length === 0
      ? { result: "green", reason: "pinned tests passed", run, ...canaryFacts }
      : { result: "red", reason: problems.join("; "), run, ...canaryFacts, ...(flake ? { flake } : {}) };
  });
}

/** A test key without the "#n" that numbers repeated paths. */
const unnumbered = (key: string): string => key.replace(/#\d+$/, "");

/** The file of a test key (JSON of [file, ...suites, title], "#n" for a repeated path); "" if none. */
function fileOfKey(key: string): string {
  try {
    const parts: unknown = JSON.parse(unnumbered(key));
    if (Array.isArray(parts) && typeof parts[0] === "string") return parts[0];
  } catch {}
  return "";
}

/** What a seam run opened that the attempt changed besides the seam's (and the canary's) files (ADR 0072). */
function openedBy(input: JudgedSeam, run: VerifierCommandRun, canaryFiles: readonly string[]) {
  return openedExposure({
    checkoutDir: input.worktree,
    trace: run.openTrace,
    seamFiles: input.seam.files,
    canaryFiles,
    changedFiles: input.changedOutsideScopeNames,
  });
}

/** New Python modules a seam run loaded that nothing of the repository it loaded imports (ADR 0076). */
function unaskedBy(input: JudgedSeam, run: VerifierCommandRun, canaryFiles: readonly string[]) {
  return outsideNamedLoads({
    checkoutDir: input.worktree,
    trace: run.openTrace,
    addedModules: input.addedPythonModules ?? [],
    changedLinks: input.changedLinks ?? [],
    attemptDirs: input.attemptDirs ?? [],
    ownFiles: [...input.seam.files, ...canaryFiles],
    seamCommand: input.seam.command,
  });
}

/** What a seam run loaded from outside its checkout that changed while the task ran (ADR 0074). */
function outsideBy(input: JudgedSeam, run: VerifierCommandRun, runStartMs: number, logPath: string) {
  return outsideExposure({
    checkoutDir: input.worktree,
    trace: run.openTrace,
    sinceMs: input.outsideSinceMs,
    runStartMs,
    ...(run.tempDir ? { runTempDir: run.tempDir } : {}),
    logPath,
  });
}

async function exitCodeRun(
  run: VerifierCommandRun,
  command: string,
  input: JudgedSeam,
  runStartMs: number,
  logPath: string,
): Promise<SeamRunVerdict> {
  const cannotRun = run.failure ?? (commandMissing(run) ? notFoundMessage(command, run.exitCode) : null);
  const canary = NO_RUNNER_CANARY;
  if (cannotRun) return { result: "error", reason: cannotRun, run, canary };
  const opened =
    openedBy(input, run, []) ??
    outsideBy(input, run, runStartMs, logPath) ??
    (await unaskedBy(input, run, []));
  if (opened !== null) return { result: "red", reason: opened, run, canary };
  if (run.exitCode === 0) return { result: "green", reason: "exited 0", run, canary };
  return { result: "red", reason: `\`${command}\` ${howEnded(run)}`, run, canary };
}

const howEnded = (run: VerifierCommandRun): string =>
  run.exitCode === null ? `was killed by ${run.signal ?? "a signal"}` : `exited ${run.exitCode}`;

/** "file > suite > title" from a test key (JSON of [file, ...suites, title]). */
function nameOfKey(key: string): string {
  try {
    const parts: unknown = JSON.parse(key);
    if (Array.isArray(parts)) return parts.filter((p) => p !== "").join(" > ");
  } catch {}
  return key;
}

export interface SeamBaseCheckInput {
  /** A checkout of the untouched base (plus the Observer's seam files), never a coder's work. */
  cwd: string;
  command: string;
  timeoutMs: number;
  logPath: string;
  signal?: AbortSignal;
  /** The run's mount namespace (ADR 0031): see VerifierCommand.mounts. */
  mounts?: RepoMounts;
}

export interface SeamBaseCheck {
  /** False when the command could not produce a verdict (not found, timeout, spawn failure, a seam error). */
  ran: boolean;
  /** True only when the seam ran and failed as the Observer claimed (by name, for a runner). */
  red: boolean;
  exitCode: number | null;
  outputExcerpt: string;
  /** One sentence for the user and the observation artifact. */
  message: string;
  logPath: string;
  /** Keys of the seam's tests that failed by name on base: pinned, and judged after each attempt. */
  tests: string[];
  /** The runner invocation the seam resolved to on base, or null (judged by exit code). */
  invocation: RunnerInvocation | null;
  /** What this check could not establish ("seam identified by exit code only"), or null. */
  caveat: string | null;
  /**
   * Repository files the seam's verdict rests on, whether or not the Observer listed them: the
   * files of the tests that failed by name, and existing files the command names (`node
   * test/check.mjs`). The lane fingerprints them with the seam's files, so a coder cannot edit
   * the evidence instead of the code (ADR 0019).
   */
  evidenceFiles: string[];
}

/**
 * Runs the seam on base before any coder: a seam claimed red must be red. When it runs a
 * recognised test runner, red means its tests ran and failed *by name* (those keys are pinned);
 * a run that names no failing test (no tests collected, a file that does not load, an unreadable
 * report) is a seam error, not "confirmed". A seam that is not a runner invocation is judged by
 * its exit code, with a caveat, unless it runs no file of the repository at all
 * (`node -e "process.exit(1)"`): that reproduces nothing and is an error too. Exit 0 is "not
 * confirmed"; a missing command or a hang is "did not run".
 */
export async function checkSeamRedOnBase(input: SeamBaseCheckInput): Promise<SeamBaseCheck> {
  const resolved = resolveInvocation(input.command, input.cwd);
  if (resolved.kind === "runner") return checkNamedOnBase(input, resolved.invocation);

  const run = await runVerifierCommand(input);
  const base = {
    exitCode: run.exitCode,
    outputExcerpt: run.excerpt,
    logPath: input.logPath,
    tests: [],
    invocation: null,
    caveat: EXIT_CODE_ONLY_CAVEAT,
    evidenceFiles: filesTheCommandNames(input.command, input.cwd),
  };
  if (run.failure)
    return { ...base, ran: false, red: false, message: `seam did not run on base: ${run.failure}` };
  if (commandMissing(run)) {
    return { ...base, ran: false, red: false, message: notFoundMessage(input.command, run.exitCode) };
  }
  if (runsNoRepoFile(input.command, input.cwd)) {
    return {
      ...base,
      ran: false,
      red: false,
      message: `seam error: \`${input.command}\` runs inline code and no file of the repository or named test, so its exit code says nothing about the problem`,
    };
  }
  if (run.exitCode === 0) {
    return {
      ...base,
      ran: true,
      red: false,
      message: `seam not confirmed: \`${input.command}\` exited 0 on base, so it does not reproduce the problem`,
    };
  }
  return {
    ...base,
    ran: true,
    red: true,
    message: `seam confirmed red on base: \`${input.command}\` ${howEnded(run)} (${EXIT_CODE_ONLY_CAVEAT})`,
  };
}

async function checkNamedOnBase(
  input: SeamBaseCheckInput,
  invocation: RunnerInvocation,
): Promise<SeamBaseCheck> {
  const { run, report, unsupported } = await runWithReport({
    invocation,
    cwd: input.cwd,
    timeoutMs: input.timeoutMs,
    logPath: input.logPath,
    reportPath: reportPathFor(input.logPath),
    ...(input.signal ? { signal: input.signal } : {}),
    ...(input.mounts ? { mounts: input.mounts } : {}),
  });
  const commandFiles = filesTheCommandNames(input.command, input.cwd);
  const base = {
    exitCode: run.exitCode,
    outputExcerpt: run.excerpt,
    logPath: input.logPath,
    invocation,
    caveat: null,
    evidenceFiles: commandFiles,
  };
  const error = (why: string): SeamBaseCheck => ({
    ...base,
    tests: [],
    ran: false,
    red: false,
    message: `seam error on base: \`${input.command}\` ${why}`,
  });
  if (run.failure) return error(`did not run: ${run.failure}`);
  if (commandMissing(run)) return { ...error(""), message: notFoundMessage(invocation.script, run.exitCode) };
  if (!report) return error(`runs ${invocation.runner}, but no report could be asked for: ${unsupported}`);
  if (!report.complete)
    return error(
      `ran ${invocation.runner}, but its report is incomplete (${report.parse_errors.join("; ") || "unknown reason"})`,
    );
  if (report.run_errors.length > 0)
    return error(
      `did not run cleanly: ${report.run_errors.join("; ")} (a syntax error or a failing hook is no reproduction)`,
    );
  if (report.tests.length === 0) return error(`collected no tests (${howEnded(run)})`);
  const failing = failingKeys(report);
  if (failing.length === 0) {
    return {
      ...base,
      tests: [],
      ran: true,
      red: false,
      message: `seam not confirmed: all ${report.tests.length} test(s) of \`${input.command}\` pass on base, so it does not reproduce the problem`,
    };
  }
  const names = report.tests.filter((t) => t.status === "fail").map((t) => nameOfKey(t.key));
  const failingFiles = report.tests
    .filter((t) => t.status === "fail")
    .map((t) => repoFile(input.cwd, t.id.file))
    .filter((f): f is string => f !== null);
  return {
    ...base,
    evidenceFiles: [...new Set([...commandFiles, ...failingFiles])].sort(),
    tests: failing,
    ran: true,
    red: true,
    message: `seam confirmed red on base: ${failing.length} test(s) failed by name: ${names.join(", ")}`,
  };
}

/** Inline code (`node -e`, `sh -c 'exit 1'`, `false`) that names no existing file of the checkout. */
function runsNoRepoFile(command: string, cwd: string): boolean {
  const inline =
    /(?:^|[\s;&|(])(?:node|python3?|sh|bash|ruby|perl|deno|bun)\s+(?:-e|-p|-c|--eval|--print)(?=[\s=]|$)/.test(
      command,
    ) || /^\s*(?:false|exit(?:\s+\d+)?|true)\s*$/.test(command);
  if (!inline) return false;
  return !commandWords(command).some(
    (path) => path !== "" && path !== "." && !path.startsWith("-") && existsSync(join(cwd, path)),
  );
}

/** The command's words, quotes removed (a rough split: enough to find the paths it names). */
function commandWords(command: string): string[] {
  return (command.match(/"[^"]*"|'[^']*'|[^\s;&|()]+/g) ?? []).map((t) => t.replace(/^["']|["']$/g, ""));
}

/**
 * Existing regular files of the checkout the command names that belong to the tests
 * (`node test/check.mjs`, `node bin/cli.js test/fixtures/bad.csv`), repo-relative. A program
 * file it names (`node src/cli.js`) is left out: that may be exactly the code the fix changes.
 */
function filesTheCommandNames(command: string, cwd: string): string[] {
  const files = commandWords(command)
    .filter((word) => word !== "" && !word.startsWith("-"))
    .map((word) => repoFile(cwd, word))
    .filter((f): f is string => f !== null && isTestPath(f));
  return [...new Set(files)].sort();
}

function notFoundMessage(command: string, exitCode: number | null): string {
  const what = exitCode === 126 ? "is not executable" : "was not found";
  return `seam command \`${command}\` ${what} (shell exit ${exitCode}); check the program exists in the worktree and the command is spelled right`;
}

function runFacts(run: VerifierCommandRun) {
  return {
    exit_code: run.exitCode,
    signal: run.signal,
    timed_out: run.timedOut,
    aborted: run.aborted,
    spawn_error: run.spawnError,
    output_excerpt: run.excerpt,
    output_truncated: run.outputTruncated,
    total_output_bytes: run.totalOutputBytes,
    duration_ms: run.durationMs,
  };
}
