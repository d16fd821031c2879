import { chmodSync, mkdtempSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
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
