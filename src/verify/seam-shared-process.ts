import { posix } from "node:path";
import type { RunnerInvocation } from "./report-run.js";
import { isTestPath } from "./test-paths.js";
import type { TestReport } from "./test-reports/index.js";

/**
 * Runners that load every test file of a run into one process before any test runs: a module-level
 * statement in any of them runs before the seam's tests, in the same module state. node:test runs
 * each file in its own process unless told otherwise (`--test-isolation=none`); jest and vitest give
 * each file its own module registry.
 */
const SHARED_PROCESS_RUNNERS = new Set(["mocha", "tape", "pytest"]);

/**
 * Why a seam run cannot vouch for the fix because other test code the attempt changed ran in the
 * seam's own process; null when it cannot have.
 *
 * A seam command that runs more than the seam's files (`npx mocha 'test/**\/*.test.js'`,
 * `python3 -m pytest tests`) loads the others with them, and their module-level code runs first
 * when they sort first: a new `test/aa.test.js` that replaced `require("../src/slug.js").slugify`,
 * or a `tests/test_aa.py` assigning `slug.slugify`, made the pinned tests pass with the bug in
 * place (measured on the real lane with mocha and pytest, stop 30). The seam's own files are pinned
 * (ADR 0019); the rest of the suite's test code is the change's to edit, so when the run loaded
 * other test files, any test-path file the attempt changed besides the seam's makes this run
 * unable to show the fix. The way out is either to leave that test code as on base or a seam
 * command that runs the seam's files only (ADR 0019, amendment 5).
 */
export function sharedProcessExposure(input: {
  invocation: RunnerInvocation;
  report: TestReport;
  /** Canary files of this run (devflow's own, never the attempt's). */
  canaryFiles: readonly string[];
  /** The seam's files (pinned: their own change is seam integrity's finding). */
  seamFiles: readonly string[];
  /** Every file the attempt changed since base. */
  changedFiles: readonly string[];
}): string | null {
  const { invocation } = input;
  if (!sharesOneProcess(invocation)) return null;
  const own = new Set([...input.seamFiles, ...input.canaryFiles].map(posix.normalize));
  const loaded = [...new Set(input.report.tests.map((t) => posix.normalize(t.id.file || ".")))].filter(
    (f) => f !== "." && !own.has(f),
  );
  // tape's TAP names no file: whether others were loaded is read from the command's own words.
  const others = invocation.runner === "tape" ? namesMoreThan(invocation.script, own) : loaded;
  if (others.length === 0) return null;
  const changed = input.changedFiles.map(posix.normalize).filter((f) => isTestPath(f) && !own.has(f));
  if (changed.length === 0) return null;
  return (
    `the seam's run loads other test files into its one ${invocation.runner} process (${list(others)}), ` +
    `and the attempt changed test code besides the seam's files (${list(changed)}): code there runs ` +
    "with the seam's tests and can make them pass without the fix; leave that test code as it was on " +
    "base, or the seam command must run the seam's files only"
  );
}

function sharesOneProcess(invocation: RunnerInvocation): boolean {
  if (SHARED_PROCESS_RUNNERS.has(invocation.runner)) return true;
  return (
    invocation.runner === "node-test" &&
    /--(?:experimental-)?test-isolation[=\s]+none\b/.test(invocation.script)
  );
}

/** The command's argument words that are not flags and not one of `own` (a glob, a folder, another file). */
function namesMoreThan(script: string, own: ReadonlySet<string>): string[] {
  const words = script
    .split(/\s+/)
    .map((w) => w.replace(/^["']|["']$/g, ""))
    .filter((w) => w !== "");
  const at = words.findIndex((w) => /(?:^|\/)tape$/.test(w));
  return words
    .slice(at + 1)
    .filter((w) => !w.startsWith("-") && !own.has(posix.normalize(w)) && /[/*.]/.test(w));
}

const list = (items: readonly string[]): string =>
  items.length <= 3 ? items.join(", ") : `${items.slice(0, 3).join(", ")} and ${items.length - 3} more`;
