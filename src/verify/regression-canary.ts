import { existsSync, rmSync } from "node:fs";
import { basename, delimiter } from "node:path";
import { withRegressionPlugin } from "./regression-plugin.js";
import { type ReportRun, type ReportRunInput, runWithReport } from "./report-run.js";
import { isCanaryTest, judgeCanary, readReportText, type SeamCanary, withSeamCanary } from "./seam-canary.js";
import type { TestReport } from "./test-reports/index.js";

/**
 * Regression's canary (ADR 0079): pytest's run of the whole suite gets a test devflow writes for the
 * run that must fail, as the seam's runs do (ADR 0028). Code under test loaded by any test module
 * shares pytest's process with it; if that code neuters pytest's test call or its report, the
 * canary stops failing and the regression run is a tamper finding instead of "no regressions".
 *
 * The canary is not named on the command line (naming a file narrows pytest's collection to the
 * files named), so whether pytest collects it from its folder is decided once, on base: the
 * baseline's run places it and pins where it was collected. On the attempt's tree a canary that
 * cannot be placed there again, or is not reported failing, fails the run.
 */
export type RegressionCanaryPin =
  /** `base_stopped_before_it`: base's run was to run it and stopped first (STOPPED_BEFORE_THE_CANARY). */
  | { status: "placed"; next_to: string; base_stopped_before_it?: boolean }
  | { status: "not_run"; reason: string };

/** What the canary showed in one regression run (the envelope's `canary`). */
export type RegressionCanaryStatus =
  | { status: "failed_as_required"; reason: null }
  | { status: "tampered"; reason: string }
  | { status: "not_run"; reason: string };

export interface CanariedReportRun extends ReportRun {
  /** The runner's report without the canary's test. */
  report: TestReport | null;
  canary: RegressionCanaryStatus;
  /** Whether a canary was written for the run (its verdict is in `canary`). */
  placed: boolean;
  /** pytest was to run the canary (last) and the run ended before it: see STOPPED_BEFORE_THE_CANARY. */
  stoppedBeforeCanary: boolean;
}

/** A pytest test file next to which the canary goes: the seam's first, else the first tracked one. */
export function canaryNextTo(seamFiles: readonly string[], tracked: readonly string[]): string | null {
  const testFile = (f: string) => /(?:^|\/)(?:test_[^/]*|[^/]*_test)\.py$/.test(f);
  return seamFiles.find(testFile) ?? [...tracked].sort().find(testFile) ?? null;
}

/**
 * Runs the pinned invocation with its report and a canary next to `nextTo` (null: none). The
 * verdict on the canary is the caller's: on base a canary that did not fail means "not collected
 * here" (pin not_run); on an attempt it is tampering.
 */
export async function runWithRegressionCanary(
  input: ReportRunInput,
  nextTo: string | null,
): Promise<CanariedReportRun> {
  if (nextTo === null || input.invocation.runner !== "pytest") {
    const reason =
      input.invocation.runner !== "pytest"
        ? `no canary for a ${input.invocation.runner} run of the whole suite`
        : "no pytest test file to place a canary next to";
    return notRun(await runWithReport(input), reason);
  }
  return withSeamCanary(
    input.cwd,
    input.invocation,
    [nextTo],
    async (canary) => {
      if (canary.kind === "not_placed") return notRun(await runWithReport(input), canary.reason);
      const withPlugin = withRegressionPlugin(canary.invocation.script);
      if (!withPlugin.ok)
        return notRun(
          await runWithReport(input),
          `devflow's pytest plugin cannot be added: ${withPlugin.reason}`,
        );
      // Next to the report, in the folder the run may write: the plugin says here that the canary
      // was among the tests to run (it always runs last).
      const scheduledMark = `${input.reportPath}.canary-scheduled`;
      rmSync(scheduledMark, { force: true });
      const ran = await runWithReport({
        ...input,
        invocation: { ...canary.invocation, script: withPlugin.command },
        env: {
          ...withPlugin.env,
          DEVFLOW_CANARY_FILES: canary.files.map((f) => basename(f)).join(delimiter),
          DEVFLOW_CANARY_SCHEDULED: scheduledMark,
        },
      });
      const scheduled = existsSync(scheduledMark);
      rmSync(scheduledMark, { force: true });
      return judged(ran, canary, await readReportText(input.reportPath), scheduled);
    },
    "in_folder",
  );
}

function notRun(ran: ReportRun, reason: string, placed = false): CanariedReportRun {
  return { ...ran, canary: { status: "not_run", reason }, placed, stoppedBeforeCanary: false };
}

/**
 * The run was to run the canary, last, and did not report it: it stopped before its end, in a way
 * devflow's plugin cannot take back (`pytest.exit` or a `KeyboardInterrupt` raised by the project's
 * code). The tests after the stop have no result in this run. Said of an attempt's run when base's
 * stopped before the canary too; else the canary missing on an attempt is the attempt's doing
 * (judgeCanary's "tampered").
 */
export const STOPPED_BEFORE_THE_CANARY =
  "the run stopped before its end (devflow's canary, scheduled to run last, never ran: a stop the project's code asks for, such as pytest.exit), so the tests after the stop have no result";

/** What pytest reported on the canary's file besides its one failing test: a fixture's setup or teardown. */
const ERROR_ON_THE_CANARY =
  "pytest reported a failure on devflow's regression canary besides its own (a fixture's setup or teardown error)";

function judged(
  ran: ReportRun,
  canary: Extract<SeamCanary, { kind: "placed" }>,
  reportText: string | null,
  scheduled: boolean,
): CanariedReportRun {
  if (ran.report === null || ran.run.failure)
    return notRun(ran, "the run produced no report to find the canary in", true);
  // The plugin took the canary's failure out of the exit status: exit 0 is the suite's, not forged.
  const verdict = judgeCanary(canary, ran.report, reportText, ran.run.exitCode, {
    runName: "regression run",
    exitCountsCanary: false,
  });
  const own = ran.report.tests.filter((t) => isCanaryTest(canary, t));
  const tests = ran.report.tests.filter((t) => !isCanaryTest(canary, t));
  // A session fixture's teardown error is reported as one more test of the last test run, which
  // may be the canary's: kept as a run error, so the canary does not take it away (review, stop 42).
  const runErrors =
    own.length > canary.titles.length && !ran.report.run_errors.includes(ERROR_ON_THE_CANARY)
      ? [...ran.report.run_errors, ERROR_ON_THE_CANARY]
      : ran.report.run_errors;
  const report = { ...ran.report, tests, run_errors: runErrors };
  return {
    ...ran,
    report,
    placed: true,
    stoppedBeforeCanary: scheduled && own.length === 0,
    canary: verdict.ok
      ? { status: "failed_as_required", reason: null }
      : { status: "tampered", reason: verdict.reason },
  };
}
