import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { RegressionEnvelope } from "../../src/artifacts/schemas/verifier-envelope.js";
import {
  type RegressionBaseline,
  runRegressionVerifier,
  takeRegressionBaseline,
} from "../../src/verify/regression.js";

/**
 * A small project for regression's tests with real runners: files written into a temp dir, the
 * baseline taken there (as on base) and the attempt's regression run compared with it.
 */

/** A pytest project: `add` is the bug (tests/test_add.py is the seam's file), `mul` is right. */
export const PYTEST_CALC = {
  "setup.cfg": "[tool:pytest]\npythonpath = .\n",
  "calc.py": "def mul(a, b):\n    return a * b\n\ndef add(a, b):\n    return a - b\n",
  "tests/test_mul.py": "from calc import mul\n\ndef test_mul():\n    assert mul(3, 4) == 12\n",
  "tests/test_add.py": "from calc import add\n\ndef test_add():\n    assert add(2, 2) == 4\n",
} as const;

/** calc.py with both functions right: the seam's fix, or a base green throughout. */
export const GOOD_CALC = "def mul(a, b):\n    return a * b\n\ndef add(a, b):\n    return a + b\n";

/** calc.py with the seam's fix (add) and a break of mul, green on base: only tests/test_mul.py sees it. */
export const FIX_ADD_BREAK_MUL = "def mul(a, b):\n    return a + b\n\ndef add(a, b):\n    return a + b\n";

/** A conftest that asks pytest to stop at the first failure from a report hook (inside the test's protocol). */
export const STOP_AT_FIRST_FAILURE_CONFTEST = [
  "import pytest",
  "",
  "@pytest.hookimpl(hookwrapper=True)",
  "def pytest_runtest_makereport(item, call):",
  "    outcome = yield",
  "    if outcome.get_result().failed:",
  '        item.session.shouldstop = "the project stops at its first failure"',
  "",
].join("\n");

/** Writes each file (folders made as needed). */
export async function writeFiles(dir: string, files: Readonly<Record<string, string>>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
}

/** Where the runs' logs go (default `<dir>/.logs`) and how long each may take (default 60 s). */
export interface RunOptions {
  logDir?: string;
  timeoutMs?: number;
}

/** The baseline of `command` in `dir`, as readiness takes it on base. */
export const baselineIn = (
  dir: string,
  command: string,
  seamFiles: readonly string[] = [],
  { logDir = join(dir, ".logs"), timeoutMs = 60_000 }: RunOptions = {},
) =>
  takeRegressionBaseline({
    cwd: dir,
    command,
    timeoutMs,
    logPath: join(logDir, "baseline.log"),
    seamFiles: [...seamFiles],
  });

/** The attempt's regression run in `dir`; the seam's tests are those of `seamFile` on base. */
export const regressionIn = (
  dir: string,
  b: RegressionBaseline,
  command: string,
  seamFile: string,
  changedFiles: readonly string[],
  { logDir = join(dir, ".logs"), timeoutMs = 60_000 }: RunOptions = {},
) =>
  runRegressionVerifier({
    worktree: dir,
    command,
    baseline: b,
    timeoutMs,
    logPath: join(logDir, "regression.log"),
    attemptId: "attempt-001",
    seamTests: (b.report?.tests ?? []).filter((t) => t.id.file === seamFile).map((t) => t.key),
    changedFiles,
  }).then((e) => RegressionEnvelope.parse(e));
