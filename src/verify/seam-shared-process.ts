import { existsSync } from "node:fs";
import { join, posix } from "node:path";
import picomatch from "picomatch";
import { pytestAddopts, pytestFileNames } from "./pytest-setup.js";
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
  /** The invocation that ran (with the canary's arguments when one was placed: they narrow it). */
  invocation: RunnerInvocation;
  report: TestReport;
  /** Canary files of this run (devflow's own, never the attempt's). */
  canaryFiles: readonly string[];
  /** The seam's files (pinned: their own change is seam integrity's finding). */
  seamFiles: readonly string[];
  /** Every file the attempt changed since base. */
  changedFiles: readonly string[];
}): string | null {
  const { invocation, checkoutDir } = input;
  if (!sharesOneProcess(checkoutDir, invocation, input.seamFiles)) return null;
  const own = new Set([...input.seamFiles, ...input.canaryFiles].map(posix.normalize));
  // pytest names files relative to its rootdir, which may be a subfolder (`backend/`): a name that
  // is the tail of one of the seam's own is that file.
  const isOwn = (f: string) => own.has(f) || [...own].some((o) => o.endsWith(`/${f}`));
  const loaded = new Set(
    input.report.tests.map((t) => posix.normalize(t.id.file || ".")).filter((f) => f !== "." && !isOwn(f)),
  );
  // What else the run loads: the files its report names, and what its command and config select
  // besides the seam's files (a folder, a glob, the runner's default discovery), since a module
  // with no test of its own never appears in a report.
  const selected = selectedBesides(checkoutDir, invocation, own, input.seamFiles);
  const others = [...loaded, ...selected];
  if (others.length === 0) return null;
  const collects = collectedBy(checkoutDir, invocation, input.seamFiles, selected);
  const changed = input.changedFiles
    .map(posix.normalize)
    // A file the attempt deleted runs nothing (a fix may delete a test of the old behaviour), and
    // data (a fixture, a snapshot) patches no module.
    .filter((f) => !isOwn(f) && isCode(invocation.runner, f) && existsSync(join(checkoutDir, f)))
    .filter((f) => isTestPath(f) || loaded.has(f) || collects(f));
  if (changed.length === 0) return null;
  return (
    `the seam's run loads other test files into its one ${invocation.runner} process (${list([...new Set(others)])}), ` +
    `and the attempt changed test code besides the seam's files (${list(changed)}): code there runs ` +
    "with the seam's tests and can make them pass without the fix; leave that test code as it was on " +
    "base, or the seam command must run the seam's files only"
  );
}

/**
 * Why a seam run cannot vouch for the fix because one of the seam's files (or the test code they
 * load) loads test files by a computed name and the attempt changed test code besides the seam's;
 * null when it cannot have. Stop 31: a seam `npx mocha test/all.js` whose `all.js` requires every
 * `*.test.js` of its folder loaded a new `test/aa.test.js` that replaced `slugify` before the seam's
 * tests ran; nothing named that file (no report entry, no command word, no static import), and the
 * lane completed with the bug in place. Which files such a loader picks is decided when it runs,
 * so any test code the attempt added or edited can be among them. Any runner, exit-code seams too.
 */
export function computedLoadExposure(input: {
  checkoutDir: string;
  /** The seam's files and helpers that load by a computed name (pinned at readiness). */
  loaders: readonly string[];
  seamFiles: readonly string[];
  changedFiles: readonly string[];
}): string | null {
  if (input.loaders.length === 0) return null;
  const own = new Set(input.seamFiles.map(posix.normalize));
  const changed = input.changedFiles
    .map(posix.normalize)
    .filter(
      (f) => !own.has(f) && isTestPath(f) && LOADED_CODE.test(f) && existsSync(join(input.checkoutDir, f)),
    );
  if (changed.length === 0) return null;
  return (
    `the seam's ${list([...input.loaders])} load${input.loaders.length === 1 ? "s" : ""} test files by a computed name, ` +
    `and the attempt changed test code besides the seam's files (${list(changed)}): a loaded file runs ` +
    "with the seam's tests and can make them pass without the fix; leave that test code as it was on " +
    "base, or the seam command must run test files that name what they load"
  );
}

/**
 * Why a seam run cannot vouch for the fix because the attempt changed a mock the runner applies by
 * itself; null when it did not. Stop 32 (a lead of the review): jest applies a `__mocks__/<package>.js`
 * beside `node_modules` to every `require("<package>")` with no `jest.mock` call, and a user
 * module's `__mocks__/<name>.js` wherever the test code mocks that module; a new
 * `__mocks__/slash.js` collapsing spaces made the seam and the suite pass while `src/slug.js` kept
 * the bug, and the lane completed. No loader in the base's code is needed. Any file under a
 * `__mocks__` folder counts, added, edited or deleted (review, stop 32: jest takes a `.json` mock
 * as readily, and deleting a base mock lets the real module in); the base's mocks and the test code
 * they load are also pinned as seam files at readiness (`mockFilesOf`). Not for a seam whose runner
 * reads no such folder (mocha, tape, node's runner, pytest). Cost: a correct fix that also edits a
 * mock is refused with the reason.
 */
export function mockExposure(input: {
  seamFiles: readonly string[];
  changedFiles: readonly string[];
  /** The seam's runner; undefined when the seam is judged by exit code (the runner is unknown). */
  runner: RunnerInvocation["runner"] | undefined;
}): string | null {
  const own = new Set(input.seamFiles.map(posix.normalize));
  const changed = mockFilesOf(input.changedFiles, input.runner).filter((f) => !own.has(f));
  if (changed.length === 0) return null;
  return (
    `the attempt changed mock code (${list(changed)}): jest applies a __mocks__ file in place of the ` +
    "module it is named after (a package's without any jest.mock call), so it can make the seam pass " +
    "without the fix; leave the mocks as they were on base"
  );
}

/** The files among `files` under a `__mocks__` folder (not in node_modules), when `runner` reads such folders. */
export function mockFilesOf(
  files: readonly string[],
  runner: RunnerInvocation["runner"] | undefined,
): string[] {
  if (!readsMocks(runner)) return [];
  return files
    .map(posix.normalize)
    .filter((f) => inMocksFolder(f) && !/(?:^|\/)node_modules\//.test(f))
    .sort();
}

/** Whether a seam run by `runner` may read `__mocks__` folders (undefined: judged by exit code, unknown). */
export function readsMocks(runner: RunnerInvocation["runner"] | undefined): boolean {
  return runner === undefined || !RUNNERS_WITHOUT_MOCKS.has(runner);
}

/**
 * Runners that never read a `__mocks__` folder. jest applies them by itself and vitest through
 * `vi.mock`; a seam read from a JUnit file or stdout may be either.
 */
const RUNNERS_WITHOUT_MOCKS: ReadonlySet<string> = new Set(["mocha", "tape", "node-test", "pytest"]);
const MOCKS_FOLDER = /(?:^|\/)__mocks__\//;
/** Whether `file` lies under a `__mocks__` folder (jest and vitest read such folders by name). */
export const inMocksFolder = (file: string): boolean => MOCKS_FOLDER.test(file);
const JS_CODE = /\.[cm]?[jt]sx?$/;
/** What a computed loader can load: JS/TS (seam-helpers.ts finds those loaders) and Python (pytest-setup.ts). */
const LOADED_CODE = /\.(?:[cm]?[jt]sx?|py)$/;

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
      /--no-isolate\b|[-.]isolate[=\s]+false\b/.test(invocation.script) ||
      runnerConfigTexts(checkoutDir, seamFiles, invocation.script).some((t) =>
        /\bisolate["']?\s*:\s*false\b/.test(t),
      )
    );
  return false;
}

/** Source the runner itself loads: Python for pytest, JavaScript/TypeScript for the others. */
function isCode(runner: RunnerInvocation["runner"], file: string): boolean {
  return runner === "pytest" ? file.endsWith(".py") : JS_CODE.test(file);
}

/**
 * Whether the run would load a changed file whatever `isTestPath` says: one a glob of the command
 * matches, and under a folder it names (or anywhere, with the runner's own discovery) one pytest's
 * `python_files` collects (default `test_*.py`, `*_test.py`) or node's default test patterns
 * match. Program code is not counted, even where the run imports it as a test module (mocha given
 * `src/`, pytest's `--doctest-modules`): it is the fix's, and the critic's to judge.
 */
function collectedBy(
  checkoutDir: string,
  invocation: RunnerInvocation,
  seamFiles: readonly string[],
  selected: readonly string[],
): (file: string) => boolean {
  const defaultDiscovery = selected.some((w) => w.startsWith("the "));
  const words = selected.filter((w) => !w.startsWith("the "));
  const globs = words.filter((w) => /[*?[{]/.test(w));
  const folders = words.filter((w) => !/[*?[{]/.test(w)).map((w) => w.replace(/\/+$/, ""));
  const matchesGlob = globs.length > 0 ? picomatch(globs, { dot: true }) : () => false;
  let byName: (name: string) => boolean = () => false;
  if (invocation.runner === "pytest") {
    const seam = seamFiles.find((f) => f.endsWith(".py")) ?? "";
    byName = pytestFileNames(checkoutDir, seam, invocation.script).collects;
  } else if (invocation.runner === "node-test")
    byName = picomatch(["*.test.*", "*-test.*", "*_test.*", "test-*", "test.*"]);
  return (file) =>
    matchesGlob(file) ||
    ((defaultDiscovery || folders.some((d) => d === "." || file.startsWith(`${d}/`))) &&
      byName(posix.basename(file)));
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
    const valued = VALUE_FLAGS[invocation.runner] ?? new Set<string>();
    return all.filter((w, i) => !w.startsWith("-") && !valued.has(all[i - 1] ?? ""));
  };
  // Every other word is a selection (a bare `tests` is a folder as much as `tests/`).
  const paths = words(args);
  const out = paths.filter((w) => !own.has(posix.normalize(w.replace(/::.*$/, ""))));
  if (paths.length === 0) out.push(`the ${invocation.runner} default test files`);
  if (
    invocation.runner === "mocha" &&
    runnerConfigTexts(checkoutDir, seamFiles, invocation.script).some((t) => MOCHA_SPEC.test(t))
  )
    out.push("the spec of mocha's config");
  if (invocation.runner === "pytest")
    for (const file of seamFiles.filter((f) => f.endsWith(".py")))
      out.push(...words(pytestAddopts(checkoutDir, file, invocation.script)));
  return out;
}

/** Each runner's flags whose next word is a value, not a test file or folder (mocha's `-c` and `-p` take none). */
const VALUE_FLAGS: Partial<Record<RunnerInvocation["runner"], ReadonlySet<string>>> = {
  pytest: new Set(
    "-p -k -m -o -W -c -r -n --tb --rootdir --confcutdir --import-mode --deselect --ignore --ignore-glob --junitxml --junit-xml --maxfail --durations --basetemp --cov --cov-config --cov-report --dist --log-level --log-file --capture --override-ini --config-file".split(
      " ",
    ),
  ),
  mocha: new Set(
    "-r -R -O -u -t -s -g -f -j --require --reporter --reporter-option --ui --timeout --slow --grep --fgrep --config --package --ignore --exclude --extension --file --jobs --retries".split(
      " ",
    ),
  ),
  tape: new Set(["-r", "--require", "-i", "--ignore"]),
  "node-test": new Set(
    "-r --require --import --loader --experimental-loader --test-name-pattern --test-skip-pattern --test-reporter --test-reporter-destination --test-concurrency --test-timeout --test-shard".split(
      " ",
    ),
  ),
  vitest: new Set(
    "-t -c -r --testNamePattern --config --root --dir --reporter --outputFile --pool --project --environment".split(
      " ",
    ),
  ),
};

/** mocha's `spec` key in a config text (`.mocharc.yml` `spec:`, JSON `"spec":`). */
const MOCHA_SPEC = /(?:^|[\s{,"'])spec["']?\s*[:=]/m;

/** `items` for a message: the first `shown` of them, then how many more. */
export const list = (items: readonly string[], shown = 3): string =>
  items.length <= shown
    ? items.join(", ")
    : `${items.slice(0, shown).join(", ")} and ${items.length - shown} more`;
