import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { basename, dirname, extname, join, posix } from "node:path";
import { pytestSelections, selectionsKeep } from "./pytest-selection.js";
import { pytestAddopts, pytestFileNames, pytestFunctionPattern } from "./pytest-setup.js";
import type { RunnerInvocation } from "./report-run.js";
import { canarySource } from "./seam-canary-source.js";
import { runnerConfigTexts } from "./seam-data-files.js";
import { RUNNER_ADAPTERS, type TestReport } from "./test-reports/index.js";
import { appendArguments, shellQuote } from "./test-reports/script-rewrite.js";

/**
 * The seam canary (ADR 0028): a test file devflow writes next to each pinned seam test file for
 * one seam run. It loads the seam file first, then registers one test that must fail through the
 * seam's assertion library. If the run reports it passing, skipped or missing, code loaded by the
 * seam neutered the assertions or forged the runner's output, and the seam's "pass" means nothing.
 */
export type SeamCanary =
  | {
      kind: "placed";
      /** The pinned invocation with the seam test files and the canary files appended. */
      invocation: RunnerInvocation;
      /** Canary files, relative to the checkout ("/" separators). */
      files: string[];
      /** One title per canary file (same order), each with this run's nonce. */
      titles: string[];
      /** The secret the canary's failure message carries. */
      messageNonce: string;
    }
  | { kind: "not_placed"; reason: string };

/** Runners whose report carries a failure's message (node:test through devflow's own reporter). */
const REPORT_CARRIES_MESSAGE = new Set(["node-test", "mocha", "jest", "vitest", "tape", "pytest"]);

/** How many nonces a pytest selection may turn down before the canary is left out (each by chance). */
const CANARY_NONCE_DRAWS = 32;

/**
 * How the runner finds the canary. named: its files are appended to the invocation (the seam run,
 * which names its test files). in_folder: the invocation is left as it is and pytest collects the
 * canary from the folder it is written to (regression's run of the whole suite, ADR 0079: naming a
 * file there would narrow pytest's collection to the files named).
 */
export type CanaryCollection = "named" | "in_folder";

/**
 * Writes the canary files into `checkoutDir` (wherever the seam runs: the coder's worktree or a
 * verification checkout), runs `run` with the canaried invocation, and removes the files in any
 * case. `seamTestFiles` are the pinned seam tests' files (relative); the canary goes next to each.
 */
export async function withSeamCanary<T>(
  checkoutDir: string,
  invocation: RunnerInvocation,
  seamTestFiles: readonly string[],
  run: (canary: SeamCanary) => Promise<T>,
  collect: CanaryCollection = "named",
): Promise<T> {
  const plan = planCanary(checkoutDir, invocation, seamTestFiles, collect);
  if (plan.kind === "not_placed") return run(plan);
  const written: string[] = [];
  try {
    for (const file of plan.writes) {
      const path = join(checkoutDir, file.path);
      written.push(path);
      // "wx": never overwrite a file of the checkout (the nonce makes a clash all but impossible).
      await writeFile(path, file.text, { flag: "wx" });
    }
    return await run(plan.canary);
  } finally {
    await Promise.all(written.map((path) => rm(path, { force: true })));
  }
}

type CanaryPlan =
  | {
      kind: "placed";
      canary: Extract<SeamCanary, { kind: "placed" }>;
      writes: { path: string; text: string }[];
    }
  | { kind: "not_placed"; reason: string };

function planCanary(
  checkoutDir: string,
  invocation: RunnerInvocation,
  seamTestFiles: readonly string[],
  collect: CanaryCollection,
): CanaryPlan {
  const adapter = RUNNER_ADAPTERS.find((a) => a.runner === invocation.runner);
  if (!adapter) return { kind: "not_placed", reason: `no canary for runner ${invocation.runner}` };
  // Only pytest collects a test file from its folder whatever the invocation: the JavaScript
  // runners' regression runs have node:test's outcome ledger or none (ADR 0079).
  if (collect === "in_folder" && adapter.runner !== "pytest")
    return { kind: "not_placed", reason: `no canary for a ${invocation.runner} run of the whole suite` };
  // A seam that selects its tests by name (`jest -t collapses`, `pytest -k spaces`) would deselect
  // the canary, and its absence would read as tampering: the seam then runs without one, and the
  // gate says so. (Found on jest, mocha and vitest: the correct fix was rejected as "tampered".)
  const files = [...new Set(seamTestFiles)].filter((f) => {
    try {
      return f !== "" && statSync(join(checkoutDir, f)).isFile();
    } catch {
      return false;
    }
  });
  const filter = nameFilterIn(invocation.script, adapter);
  const configured = configuredNameFilter(checkoutDir, adapter, files, invocation.script);
  // pytest's `-k`/`-m` expressions can be evaluated for the canary (pytest-selection.ts): one that
  // keeps it (`-m "not slow"`) needs no canary-less run; that is decided once its names are known.
  const pytestSelection =
    adapter.runner === "pytest" && (filter !== null || configured !== null)
      ? [
          ...pytestSelections(runnerArgs(invocation.script, adapter)),
          ...files.flatMap((f) => pytestSelections(pytestAddopts(checkoutDir, f, invocation.script))),
        ]
      : null;
  if (filter !== null && pytestSelection === null)
    return {
      kind: "not_placed",
      reason: `the seam command selects tests by name (\`${filter}\`), which would deselect a canary test`,
    };
  if (configured !== null && pytestSelection === null)
    return {
      kind: "not_placed",
      reason: `the runner's configuration selects tests by name (${configured}), which would deselect a canary test`,
    };
  if (files.length === 0)
    return { kind: "not_placed", reason: "no seam test file to place a canary next to" };
  // Only the names depend on the nonce: they are drawn (and redrawn) first, the files written after.
  const namesFor = (nonce: string) =>
    files.map((seamFile, i) => ({
      seamFile,
      path: posix.join(
        posix.dirname(seamFile),
        canaryName(basename(seamFile), `${nonce}${i}`, invocation.runner),
      ),
      title:
        invocation.runner === "pytest"
          ? pytestFunctionName(checkoutDir, seamFile, `devflow_seam_canary_${nonce}${i}`, invocation.script)
          : `devflow seam canary ${nonce}${i}`,
    }));
  // The nonce is random hex, so a pytest `-k` naming a word of hex letters (`not db`) deselects
  // some canaries by chance: another nonce is drawn before the seam is said to deselect it
  // (regression, stop 35: `-k 'not network and not db'` lost its canary about 1 run in 20).
  let names = namesFor(randomBytes(6).toString("hex"));
  if (pytestSelection !== null) {
    const keeps = (ns: typeof names) =>
      ns.every((n) => selectionsKeep(pytestSelection, [n.title, basename(n.path)]));
    for (let draw = 1; draw < CANARY_NONCE_DRAWS && !keeps(names); draw++)
      names = namesFor(randomBytes(6).toString("hex"));
    if (!keeps(names))
      return {
        kind: "not_placed",
        reason:
          filter !== null
            ? `the seam command selects tests by name (\`${filter}\`), which would deselect a canary test`
            : `the runner's configuration selects tests by name (${configured}), which would deselect a canary test`,
      };
  }
  if (collect === "in_folder") {
    // Not named on the command line, the canary is collected only if `python_files` matches it.
    const collected = pytestFileNames(checkoutDir, files[0] ?? "", invocation.script);
    const missed = names.find((n) => !collected.collects(basename(n.path)));
    if (missed)
      return {
        kind: "not_placed",
        reason: `pytest's python_files (${collected.patterns.join(" ")}) would not collect a canary named ${basename(missed.path)}`,
      };
  }
  const messageNonce = randomBytes(9).toString("hex");
  const writes = names.map(({ seamFile, path, title }) => {
    const source = readFileSync(join(checkoutDir, seamFile), "utf8");
    const text = canarySource({
      runner: invocation.runner,
      seamFileName: basename(seamFile),
      esm: isEsm(checkoutDir, seamFile, source, invocation.runner),
      registrar: registrarOf(source, invocation, checkoutDir, files),
      title,
      messageNonce,
    });
    return { path, text, title };
  });
  // pytest runs exactly what its arguments select: a seam file already named there (perhaps as one
  // test, `tests/test_slug.py::test_spaces`) is not appended again, which would select all of it.
  const seamArgs =
    invocation.runner === "pytest" ? files.filter((f) => !namesPath(invocation.script, f)) : files;
  const args = [...seamArgs, ...writes.map((w) => w.path)].map(shellQuote);
  const appended =
    collect === "named"
      ? appendArguments(invocation.script, adapter.invocation, args, invocation.runner)
      : ({ ok: true, command: invocation.script } as const);
  if (!appended.ok)
    return { kind: "not_placed", reason: `the canary cannot be added to the invocation: ${appended.reason}` };
  return {
    kind: "placed",
    canary: {
      kind: "placed",
      invocation: { ...invocation, script: appended.command },
      files: writes.map((w) => w.path),
      titles: writes.map((w) => w.title),
      messageNonce,
    },
    writes,
  };
}

/** The runner's name-filter flag in the arguments after its invocation in `script`, or null. */
function nameFilterIn(script: string, adapter: (typeof RUNNER_ADAPTERS)[number]): string | null {
  if (!adapter.nameFilter) return null;
  const found = adapter.nameFilter.exec(runnerArgs(script, adapter));
  return found ? found[0].trim() : null;
}

/** The runner's own arguments in `script` (what follows its invocation); "" when it is not there. */
function runnerArgs(script: string, adapter: (typeof RUNNER_ADAPTERS)[number]): string {
  const match = new RegExp(adapter.invocation.source).exec(script);
  return match ? script.slice(match.index + match[0].length) : "";
}

/**
 * A name filter the project's configuration sets rather than the seam command: pytest's `addopts`
 * (`-k spaces`) in the config pytest runs a seam file with, or a `testNamePattern`/`grep` key in a
 * runner config the seam's run reads. Read where the seam runs; those configs are seam files or
 * compared with base, so a coder adding one fails elsewhere (stop 30; ADR 0028 amendment).
 */
function configuredNameFilter(
  checkoutDir: string,
  adapter: (typeof RUNNER_ADAPTERS)[number],
  seamFiles: readonly string[],
  script: string,
): string | null {
  if (adapter.runner === "pytest" && adapter.nameFilter) {
    for (const file of seamFiles) {
      const found = adapter.nameFilter.exec(` ${pytestAddopts(checkoutDir, file, script)}`);
      if (found) return `\`${found[0].trim()}\` in pytest's addopts`;
    }
    return null;
  }
  const key = adapter.configNameFilter;
  if (!key) return null;
  const found = runnerConfigTexts(checkoutDir, seamFiles, script)
    .map((text) => key.exec(text))
    .find((m) => m !== null);
  return found ? `\`${found[0].replace(/^[\s{,"']+|["'\s:=]+$/g, "")}\` in a runner config` : null;
}

/**
 * `it` or `test`: what the seam file itself calls, so a tamper on one of them is shared. A seam
 * file that registers no test of its own (a loader requiring the test files, stop 31) gets the
 * runner's own: mocha's globals depend on its interface (bdd, its default, has `it` only; tdd and
 * qunit `test` only), read from `--ui`/`-u` and its config's `ui`; a `test` canary under bdd died
 * with a ReferenceError and the missing canary read as tampering. Every other runner has both.
 */
function registrarOf(
  source: string,
  invocation: RunnerInvocation,
  checkoutDir: string,
  seamFiles: readonly string[],
): "it" | "test" {
  if (CALLS_IT.test(source)) return "it";
  if (CALLS_TEST.test(source) || invocation.runner !== "mocha") return "test";
  const configs = runnerConfigTexts(checkoutDir, seamFiles, invocation.script);
  return [invocation.script, ...configs].some((text) => MOCHA_TEST_UI.test(text)) ? "test" : "it";
}

const CALLS_IT = /(?:^|[^\w.$])it(?:\.only)?\s*\(/m;
const CALLS_TEST = /(?:^|[^\w.$])test(?:\.only)?\s*\(/m;
/** `--ui tdd`, `-u=qunit`, `ui: "tdd"` (.mocharc.*), `"ui": "tdd"` (JSON), `ui: tdd` (YAML). */
const MOCHA_TEST_UI =
  /(?:--ui|(?:^|\s)-u)[\s=]+["']?(?:tdd|qunit)\b|["']?\bui["']?\s*:\s*["']?(?:tdd|qunit)\b/m;

/** Whether a command line names `path` as a word or the start of one (`path::test`), optionally quoted. */
function namesPath(script: string, path: string): boolean {
  const escaped = path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(?:^|[\\s'"])(?:\\./)?${escaped}(?=$|[\\s'":])`).test(script);
}

/**
 * mocha and tape load every test file into one process before any test runs, so the seam's modules
 * (and their side effects) are loaded whatever the order; but a canary loaded before the seam file
 * would register the seam's tests as its own (mocha names a test after the file being loaded).
 * Their canary's name therefore starts with the seam file's whole name: in the sorted expansion of
 * the project's own glob it comes right after the seam file (`slug.test.js.devflow-canary-N.js`).
 */
const ONE_PROCESS_RUNNERS = new Set(["mocha", "tape"]);

/**
 * A name the runner's default pattern (and a project's like it) still matches: the nonce goes
 * before the test suffix (`slug.test.js` → `slug.devflow-canary-N.test.js`); a name with a
 * `test` prefix keeps it (`test-slug.js` → `test-slug-devflow-canary-N.js`); anything else keeps
 * its suffix (`slug_test.js` → `devflow-canary-N-slug_test.js`). mocha and tape: see above.
 */
export function canaryName(seamFileName: string, nonce: string, runner: string): string {
  // A Python module name (underscores); pytest collects a file given on its command line whatever
  // its `python_files` patterns say, and every test module into one process, as mocha does.
  if (runner === "pytest") {
    const stem = seamFileName.replace(/\.py$/, "");
    return /^test/.test(stem)
      ? `${stem}_devflow_canary_${nonce}.py`
      : `test_devflow_canary_${nonce}_${stem}.py`;
  }
  if (ONE_PROCESS_RUNNERS.has(runner))
    return `${seamFileName}.devflow-canary-${nonce}${extname(seamFileName)}`;
  const dot = seamFileName.indexOf(".");
  const stem = dot === -1 ? seamFileName : seamFileName.slice(0, dot);
  const rest = dot === -1 ? "" : seamFileName.slice(dot);
  if (rest.split(".").length > 2) return `${stem}.devflow-canary-${nonce}${rest}`;
  if (/^test/i.test(stem)) return `${stem}-devflow-canary-${nonce}${rest}`;
  return `devflow-canary-${nonce}-${seamFileName}`;
}

/**
 * The canary's test function name, as the project's `python_functions` collects it: the first
 * pattern's prefix (`test` by default) or glob (`*_check` → `devflow_…_check`).
 */
function pytestFunctionName(checkoutDir: string, seamFile: string, name: string, script: string): string {
  const configured = pytestFunctionPattern(checkoutDir, seamFile, script) ?? "test";
  return configured.includes("*") ? configured.replace("*", name) : `${configured}_${name}`;
}

/** The module syntax the seam file uses: its extension, its own import/export statements, its package's type. */
function isEsm(checkoutDir: string, seamFile: string, source: string, runner: string): boolean {
  const ext = extname(seamFile);
  if (ext === ".mjs" || ext === ".mts") return true;
  if (ext === ".cjs" || ext === ".cts") return false;
  if (/^\s*(?:import\s*[\w{*"']|export\s)/m.test(source)) return true;
  if (/\brequire\s*\(/.test(source)) return false;
  if (runner === "vitest") return true;
  return packageType(checkoutDir, seamFile) === "module";
}

function packageType(checkoutDir: string, seamFile: string): string | null {
  let dir = dirname(join(checkoutDir, seamFile));
  for (;;) {
    const pkg = join(dir, "package.json");
    if (existsSync(pkg)) {
      try {
        const type = (JSON.parse(readFileSync(pkg, "utf8")) as { type?: unknown }).type;
        return typeof type === "string" ? type : null;
      } catch {
        return null;
      }
    }
    if (dir === checkoutDir || dirname(dir) === dir) return null;
    dir = dirname(dir);
  }
}

export type CanaryVerdict = { ok: true } | { ok: false; reason: string };

/** The report file's text, in which `judgeCanary` looks for the canary's nonce; null when unreadable. */
export async function readReportText(path: string): Promise<string | null> {
  try {
    return await readFile(path, "utf8");
  } catch {
    return null;
  }
}

/**
 * The canary must be reported failing by name, with its nonce in the failure message where the
 * report carries messages, and the runner must exit non-zero (it had a failing test).
 */
export function judgeCanary(
  canary: Extract<SeamCanary, { kind: "placed" }>,
  report: TestReport,
  reportText: string | null,
  exitCode: number | null,
  options: {
    /** How the run is named in reasons. */
    runName?: string;
    /** False when devflow's pytest plugin took the canary's failure out of the exit status (ADR 0079). */
    exitCountsCanary?: boolean;
  } = {},
): CanaryVerdict {
  const runName = options.runName ?? "seam run";
  const cannotFail = `the ${runName} cannot fail: the canary test`;
  const tampered = "assertion library or reporter tampered";
  for (const title of canary.titles) {
    const found = report.tests.filter((t) => t.id.title === title);
    if (found.length === 0)
      return { ok: false, reason: `${cannotFail} "${title}" is missing from the report (${tampered})` };
    const notFailing = found.find((t) => t.status !== "fail");
    if (notFailing)
      return {
        ok: false,
        reason: `${cannotFail} "${title}" ${notFailing.status === "pass" ? "passed" : `was reported ${notFailing.status}`} (${tampered})`,
      };
  }
  if (
    REPORT_CARRIES_MESSAGE.has(report.runner) &&
    reportText !== null &&
    !reportText.includes(canary.messageNonce)
  )
    return {
      ok: false,
      reason: `${cannotFail} failed without its own assertion message, so not through the assertion library (${tampered})`,
    };
  if (exitCode === 0 && options.exitCountsCanary !== false)
    return {
      ok: false,
      reason: `the ${runName} cannot fail: the runner exited 0 although its canary test failed (exit status forged)`,
    };
  return { ok: true };
}

/** Tests of the canary files themselves (for jest/vitest/node:test, the seam's tests loaded again there). */
export function isCanaryTest(
  canary: Extract<SeamCanary, { kind: "placed" }>,
  test: TestReport["tests"][number],
): boolean {
  return canary.files.includes(test.id.file) || canary.titles.includes(test.id.title);
}
