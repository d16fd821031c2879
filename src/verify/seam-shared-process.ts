import { existsSync } from "node:fs";
import { join, posix } from "node:path";
import { pytestAddopts } from "./pytest-setup.js";
import type { RunnerInvocation } from "./report-run.js";
import { runnerConfigTexts } from "./seam-data-files.js";
import { isTestPath } from "./test-paths.js";
import { RUNNER_ADAPTERS, type TestReport } from "./test-reports/index.js";

/**
 * Runners that load every test file of a run into one process before any test runs: a module-level
 * statement in any of them runs before the seam's tests, in the same module state. node:test runs
 * each file in its own process unless told otherwise (`--test-isolation=none`); jest gives each file
 * its own module registry, and vitest too unless isolation is off (`--no-isolate`, `isolate: false`).
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
  /** The checkout the seam ran in (its runner configs are read). */
  checkoutDir: string;
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
  if (!sharesOneProcess(input.checkoutDir, invocation, input.seamFiles)) return null;
  const own = new Set([...input.seamFiles, ...input.canaryFiles].map(posix.normalize));
  const loaded = new Set(input.report.tests.map((t) => posix.normalize(t.id.file || ".")));
  loaded.delete(".");
  for (const file of own) loaded.delete(file);
  // What else the run loads: the files its report names, and what its command and config select
  // besides the seam's files (a folder, a glob, the runner's default discovery), since a module
  // with no test of its own never appears in a report.
  const others = [...loaded, ...selectedBesides(input.checkoutDir, invocation, own, input.seamFiles)];
  if (others.length === 0) return null;
  const changed = input.changedFiles
    .map(posix.normalize)
    // A file the attempt deleted runs nothing (a fix may delete a test of the old behaviour).
    .filter((f) => (isTestPath(f) || loaded.has(f)) && !own.has(f) && existsSync(join(input.checkoutDir, f)));
  if (changed.length === 0) return null;
  return (
    `the seam's run loads other test files into its one ${invocation.runner} process (${list([...new Set(others)])}), ` +
    `and the attempt changed test code besides the seam's files (${list(changed)}): code there runs ` +
    "with the seam's tests and can make them pass without the fix; leave that test code as it was on " +
    "base, or the seam command must run the seam's files only"
  );
}

function sharesOneProcess(
  checkoutDir: string,
  invocation: RunnerInvocation,
  seamFiles: readonly string[],
): boolean {
  if (SHARED_PROCESS_RUNNERS.has(invocation.runner)) return true;
  if (invocation.runner === "node-test")
    return /--(?:experimental-)?test-isolation[=\s]+none\b/.test(invocation.script);
  // vitest without isolation shares one module graph between the files a worker runs.
  if (invocation.runner === "vitest")
    return (
      /--no-isolate\b|--isolate[=\s]+false\b/.test(invocation.script) ||
      runnerConfigTexts(checkoutDir, seamFiles, invocation.script).some((t) =>
        /\bisolate["']?\s*:\s*false\b/.test(t),
      )
    );
  return false;
}

/**
 * What the seam's command selects besides `own`: each path-like argument after the runner that is
 * not one of them (`test/`, `'test/**\/*.test.js'`; not a known flag's value like `-p devtools.x`),
 * the runner's default discovery when it names no path at all, and a
 * `spec` in mocha's config (merged with the command's) or a path in pytest's `addopts`.
 */
function selectedBesides(
  checkoutDir: string,
  invocation: RunnerInvocation,
  own: ReadonlySet<string>,
  seamFiles: readonly string[],
): string[] {
  const adapter = RUNNER_ADAPTERS.find((a) => a.runner === invocation.runner);
  const at = adapter ? new RegExp(adapter.invocation.source).exec(invocation.script) : null;
  const args = at ? invocation.script.slice(at.index + at[0].length) : invocation.script;
  const words = (text: string) => {
    const all = text
      .split(/[\s;&|]+/)
      .map((w) => w.replace(/^["']|["']$/g, ""))
      .filter((w) => w !== "");
    // A flag's separate value (`-p devtools.x`, `-r test/setup.js`, `-t 5000`) selects no test file.
    return all.filter((w, i) => !w.startsWith("-") && !VALUE_FLAGS.has(all[i - 1] ?? ""));
  };
  const paths = words(args).filter((w) => /[/*.]/.test(w));
  const out = paths.filter((w) => !own.has(posix.normalize(w.replace(/::.*$/, ""))));
  if (paths.length === 0) out.push(`the ${invocation.runner} default test files`);
  if (
    invocation.runner === "mocha" &&
    runnerConfigTexts(checkoutDir, seamFiles, invocation.script).some((t) => MOCHA_SPEC.test(t))
  )
    out.push("the spec of mocha's config");
  if (invocation.runner === "pytest")
    for (const file of seamFiles.filter((f) => f.endsWith(".py")))
      out.push(...words(pytestAddopts(checkoutDir, file)).filter((w) => /[/*.]/.test(w)));
  return out;
}

/** Flags of mocha, tape and pytest whose next word is a value, not a test file or folder. */
const VALUE_FLAGS = new Set([
  "-p",
  "-k",
  "-m",
  "-o",
  "-W",
  "-c",
  "-r",
  "-R",
  "-t",
  "-u",
  "-g",
  "-f",
  "--require",
  "--reporter",
  "--ui",
  "--timeout",
  "--config",
  "--ignore",
  "--grep",
  "--fgrep",
  "--rootdir",
  "--confcutdir",
  "--import-mode",
]);

/** mocha's `spec` key in a config text (`.mocharc.yml` `spec:`, JSON `"spec":`). */
const MOCHA_SPEC = /(?:^|[\s{,"'])spec["']?\s*[:=]/m;

const list = (items: readonly string[]): string =>
  items.length <= 3 ? items.join(", ") : `${items.slice(0, 3).join(", ")} and ${items.length - 3} more`;
