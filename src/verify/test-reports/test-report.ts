import { z } from "zod";

/** The runners devflow can ask for a machine-readable report, plus the two generic formats. */
export const RunnerName = z.enum([
  "mocha",
  "jest",
  "vitest",
  "node-test",
  "tape",
  "pytest",
  "junit",
  "stdout",
]);
export type RunnerName = z.infer<typeof RunnerName>;

export const TestStatus = z.enum(["pass", "fail", "skip", "todo"]);
export type TestStatus = z.infer<typeof TestStatus>;

/** Where a test lives: its file (relative to the checkout, "/" separators), its suites outermost first, its own title. */
export const TestId = z.object({
  file: z.string(),
  suites: z.array(z.string()),
  title: z.string(),
});
export type TestId = z.infer<typeof TestId>;

export const ReportedTest = z.object({
  id: TestId,
  /**
   * The test's stable identity across runs and checkouts: the full path, never the last title
   * alone. A second test with exactly the same path in one report gets "#2" (and so on) appended.
   */
  key: z.string().min(1),
  status: TestStatus,
});
export type ReportedTest = z.infer<typeof ReportedTest>;

export const TestReport = z.object({
  runner: RunnerName,
  /**
   * "reporter": read from a report the runner wrote for devflow. "stdout_fallback": guessed from
   * console output because no reporter could be requested; identities are weaker and say so in `notes`.
   */
  source: z.enum(["reporter", "stdout_fallback"]),
  /** False when the report was missing, truncated or not understood: never read it as "all passed". */
  complete: z.boolean(),
  tests: z.array(ReportedTest),
  /** Why the report is incomplete, one line each. */
  parse_errors: z.array(z.string()),
  /** Failures outside any test the report names: a file that did not load, a failing hook. */
  run_errors: z.array(z.string()),
  /** What the identities cannot tell apart for this runner (e.g. tape's TAP carries no file names). */
  notes: z.array(z.string()),
});
export type TestReport = z.infer<typeof TestReport>;
