import { displayName, testKey } from "./report-builder.js";
import type { ReportedTest, TestReport, TestStatus } from "./test-report.js";

export type NowStatus = TestStatus | "missing";

export interface ComparedTest {
  key: string;
  /** Readable path for summaries ("test/a.test.js > suite > title"). */
  name: string;
  now: NowStatus;
}

export interface RegressionComparison {
  /** No baseline-passing test regressed and the current report is complete. */
  pass: boolean;
  /** One line per reason it does not pass. */
  reasons: string[];
  /** Non-seam tests that passed on base and now fail, are missing, skipped or todo. */
  regressions: ComparedTest[];
  /** Non-seam tests failing on base that pass now. */
  newly_passing: ComparedTest[];
  /** Non-seam tests failing on base and still failing. */
  still_failing: ComparedTest[];
  /**
   * Non-seam tests failing now that did not fail on base: not run there at all (new, or never
   * reached by a run that stopped early) or skipped/todo there. Each fails regression (ADR 0080).
   */
  new_failures: ComparedTest[];
}

export interface SeamComparison {
  /** Every seam test is in the current report and passes. */
  pass: boolean;
  reasons: string[];
  tests: ComparedTest[];
}

export type ReportComparison =
  | { kind: "compared"; regression: RegressionComparison; seam: SeamComparison }
  /** The baseline itself was incomplete: nothing can be compared per test. */
  | { kind: "baseline_unusable"; reason: string };

export interface CompareOptions {
  /** Keys of the seam's tests (failing on base); judged as seam tests, left out of the regression comparison. */
  seamKeys: readonly string[];
}

/**
 * Baseline (the suite on base) against the current run. Seam tests are excluded from the
 * regression side and must each pass now; any other test green on base must still be green
 * (missing, skipped and todo count as not green), and any other test failing now must have failed
 * on base too. An incomplete current report fails both sides whenever the baseline named tests,
 * whatever tests it does list.
 */
export function compareReports(
  baseline: TestReport,
  current: TestReport,
  options: CompareOptions,
): ReportComparison {
  if (!baseline.complete)
    return {
      kind: "baseline_unusable",
      reason: `the baseline report is incomplete: ${baseline.parse_errors.join("; ") || "unknown reason"}`,
    };
  const seamKeys = new Set(options.seamKeys);
  const now = new Map(current.tests.map((t) => [t.key, t] as const));
  const incomplete =
    !current.complete && baseline.tests.length > 0
      ? `the current report is incomplete although the baseline named ${baseline.tests.length} test(s): ${current.parse_errors.join("; ") || "unknown reason"}`
      : null;

  const regression: RegressionComparison = {
    pass: true,
    reasons: [],
    regressions: [],
    newly_passing: [],
    still_failing: [],
    new_failures: [],
  };
  for (const was of baseline.tests) {
    if (seamKeys.has(was.key)) continue;
    const entry = compared(was, now.get(was.key));
    if (was.status === "pass" && entry.now !== "pass") regression.regressions.push(entry);
    if (was.status === "fail" && entry.now === "pass") regression.newly_passing.push(entry);
    if (was.status === "fail" && entry.now === "fail") regression.still_failing.push(entry);
  }
  // A test identity reported more often now than on base: which occurrence is base's test cannot
  // be told (they are numbered in report order), so for one green on base every occurrence now must
  // pass. A look-alike registered before the real test took its key and its pass, and the real,
  // broken test, relabelled todo, went unjudged under `#2` (review 59, attack 59a).
  for (const entry of crowdedGreenTests(baseline, current, seamKeys))
    if (!regression.regressions.some((r) => r.key === entry.key)) regression.regressions.push(entry);
  // Failing now and not failing on base is a broken test whatever base's run said of it: a red base
  // whose run stopped at its first failure (`-x`, `--bail`) never reached the tests after it, so
  // "not on base" cannot mean "new" (ADR 0080). Those green on base are regressions already.
  const baseStatus = new Map(baseline.tests.map((t) => [t.key, t.status] as const));
  for (const test of current.tests) {
    const was = baseStatus.get(test.key);
    if (test.status === "fail" && was !== "fail" && was !== "pass" && !seamKeys.has(test.key))
      regression.new_failures.push(compared(test, test));
  }
  if (incomplete) regression.reasons.push(incomplete);
  if (regression.regressions.length > 0)
    regression.reasons.push(
      `${regression.regressions.length} test(s) green on base are not green now: ${regression.regressions
        .map((r) => `${r.name} (${r.now})`)
        .join(", ")}`,
    );
  if (regression.new_failures.length > 0)
    regression.reasons.push(
      `${regression.new_failures.length} test(s) fail now that did not fail on base: ${regression.new_failures
        .map((t) => t.name)
        .join(", ")}`,
    );
  regression.pass = regression.reasons.length === 0;

  const seamTests = [...seamKeys].map((key) => {
    const test = now.get(key);
    return { key, name: test ? displayName(test.id) : key, now: test?.status ?? ("missing" as const) };
  });
  const seamReasons: string[] = [];
  if (seamKeys.size === 0) seamReasons.push("no seam tests were named");
  if (incomplete) seamReasons.push(incomplete);
  const notPassing = seamTests.filter((t) => t.now !== "pass");
  if (notPassing.length > 0)
    seamReasons.push(`seam test(s) not passing: ${notPassing.map((t) => `${t.name} (${t.now})`).join(", ")}`);
  return {
    kind: "compared",
    regression,
    seam: { pass: seamReasons.length === 0, reasons: seamReasons, tests: seamTests },
  };
}

/**
 * The occurrences now, not passing, of each test identity (file, suites, title) that base reported
 * only passing and that is reported more often now than on base.
 */
function crowdedGreenTests(baseline: TestReport, current: TestReport, seamKeys: Set<string>): ComparedTest[] {
  const onBase = new Map<string, { count: number; green: boolean }>();
  for (const t of baseline.tests) {
    const identity = testKey(t.id);
    const seen = onBase.get(identity) ?? { count: 0, green: true };
    onBase.set(identity, {
      count: seen.count + 1,
      green: seen.green && t.status === "pass" && !seamKeys.has(t.key),
    });
  }
  const now = new Map<string, ReportedTest[]>();
  for (const t of current.tests) {
    const identity = testKey(t.id);
    const same = now.get(identity);
    if (same) same.push(t);
    else now.set(identity, [t]);
  }
  const crowded: ComparedTest[] = [];
  for (const [identity, tests] of now) {
    const base = onBase.get(identity);
    if (!base?.green || tests.length <= base.count) continue;
    for (const t of tests) if (t.status !== "pass") crowded.push(compared(t, t));
  }
  return crowded;
}

/** Keys of the failing tests in a report: on base, the seam run's failing tests are the seam keys. */
export function failingKeys(report: TestReport): string[] {
  return report.tests.filter((t) => t.status === "fail").map((t) => t.key);
}

function compared(was: ReportedTest, test: ReportedTest | undefined): ComparedTest {
  return { key: was.key, name: displayName(was.id), now: test?.status ?? "missing" };
}
