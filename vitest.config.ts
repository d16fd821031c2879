import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { defineConfig } from "vitest/config";

// Every temp dir a test run makes (tempDir(), mkdtemp(tmpdir()), the CLI's and coders' scratch: all
// read TMPDIR) goes under one root per run, removed by test/support/remove-test-tmp-root.ts when the
// run ends: test repos, clones and overlay uppers used to stay in /tmp after every run. Mode 1777
// like /tmp itself: tests that drop to another uid (test/support/scan-as-user.ts) make temp dirs too.
const testTmpRoot = mkdtempSync(join(tmpdir(), "devflow-tests-"));
chmodSync(testTmpRoot, 0o1777);
process.env.DEVFLOW_TEST_TMP_ROOT = testTmpRoot;

// The tests must not read the developer's own ~/.config/devflow/config.json (ADR 0047): every
// worker sees an empty config dir unless a test points XDG_CONFIG_HOME / DEVFLOW_CONFIG elsewhere.
const emptyConfigHome = mkdtempSync(join(testTmpRoot, "devflow-test-xdg-"));
// Nor the developer's daemon data root (~/.devflow, ADR 0051): an empty one unless a test sets its own.
const emptyDataRoot = mkdtempSync(join(testTmpRoot, "devflow-test-home-"));

// The suite's pytest runs start in a virtual environment holding pytest and what it requires, and
// nothing else (ADR 0077): this machine's Python also has hypothesis and pytest-benchmark, whose
// plugins pytest loads at every start (1.1 s of a 1.8 s run), and `python3` is a pyenv shim (about
// 20 bash processes per call). Outside the temp root: DEVFLOW_WRITABLE_DIRS below is that root, and
// devflow refuses to ask its own Python questions of an interpreter an attempt could write.
const pytestBin = pytestOnlyEnvironment();

/** The bin folder of a new pytest-only environment, or undefined when this machine has no pytest. */
function pytestOnlyEnvironment(): string | undefined {
  let python: string;
  try {
    python = execFileSync("python3", ["-c", "import sys, pytest; print(sys.executable)"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  } catch {
    return undefined; // no python3 or no pytest: the Python tests fail and say so, as before
  }
  const dir = mkdtempSync(join(tmpdir(), "devflow-test-python-"));
  process.env.DEVFLOW_TEST_PYTHON_ENV = dir; // removed when the run ends (remove-test-tmp-root.ts)
  try {
    return execFileSync(python, [join(import.meta.dirname, "test/support/pytest-venv.py"), dir], {
      encoding: "utf8",
    }).trim();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`could not make the tests' pytest environment: ${(error as Error).message}`);
  }
}

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts", "evals/**/*.test.ts", "playground/**/*.test.ts"],
    // A hang guard, not a speed check (speed is the benchmarks'): a two-attempt lane test took 60 s
    // on a loaded machine in a CI run and failed on the timeout alone.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Tests spawn real git and child processes; two cores are shared between workers.
    pool: "forks",
    // vitest's default (cores − 1) ran the whole suite in ONE worker on a 2-core machine, while
    // most test time is spent waiting on child processes (git, the CLI, coders, timeouts): two
    // workers there. VITEST_MAX_WORKERS still overrides it (e.g. 1 to debug an ordering problem).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    globalSetup: ["test/support/remove-test-tmp-root.ts"],
    env: {
      TMPDIR: testTmpRoot,
      ...(pytestBin ? { PATH: [pytestBin, process.env.PATH].filter(Boolean).join(delimiter) } : {}),
      XDG_CONFIG_HOME: emptyConfigHome,
      DEVFLOW_CONFIG: "",
      DEVFLOW_HOME: emptyDataRoot,
      // Stub coders and test commands of the suite keep state and signal the test through files of
      // this root (a run counter, "the coder started"); a confined run writes nothing else outside
      // its checkout (ADR 0075). The tests of that seal remove this (test/support/sealed-runs.ts).
      DEVFLOW_WRITABLE_DIRS: testTmpRoot,
    },
  },
});
