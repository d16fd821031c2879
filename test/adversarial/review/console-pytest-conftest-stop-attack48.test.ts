/**
 * Hostile review (attack 48, of stop 45's `everyTestConsoleCommand` in src/verify/report-run.ts and
 * its use as the baseline's `consoleCommand` in src/verify/regression.ts): FALSE COMPLETION and
 * FALSE REJECTION on the console path for pytest.
 *
 * Attack: the project's pytest command writes its own junit report (`--junitxml=…`), so devflow
 * cannot ask for one and both base and the attempt are judged from the console. The project's
 * conftest stops at the first failure the way ADR 0083 (stops 44/45) says devflow undoes: it sets
 * `session.shouldstop` from a report hook (STOP_AT_FIRST_FAILURE_CONFTEST). On the report path
 * devflow's plugin (`-p devflow_regression_count`, the session class swap) takes that stop back.
 *
 * Why it works: for pytest the console's "every-test arguments" are only `--maxfail=0`
 * (`withEveryTestRun` on the console path adds no `-p devflow_regression_count`), so the conftest's
 * stop stands on base and on every attempt, and there is no canary on the console path to notice a
 * run cut short. With a known failure on base sorting before the test the attempt breaks, both runs
 * stop at the known failure; test_mul is in neither output and regression says "no regressions"
 * (false completion). With no known failure, base stops at the seam's own failure, so a test
 * already broken on base after it never runs on base; the correct fix runs on to it and is rejected
 * as "fails now that did not fail on base" (false rejection, the stop-43 shape).
 *
 * Suggested fix: on the console path give pytest the same plugin as the report path (`-p
 * devflow_regression_count` with its folder on PYTHONPATH; the plugin alone, without the canary or
 * the mark file, already ignores shouldstop/shouldfail), or fail closed on base when the console
 * run is a recognised runner whose stops devflow cannot undo.
 *
 * Fixed (stop 45), was `it.fails`: pytest's console runs load devflow's plugin too (its folder on
 * PYTHONPATH, pinned in the baseline as `consoleEnv`). A command that sets its own PYTHONPATH
 * gets the folder appended (stop 51, the last case); where that cannot be done the plugin is
 * hidden, and base then runs again without it, keeping `--maxfail=0` (the case before).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  baselineIn,
  FIX_ADD_BREAK_MUL,
  GOOD_CALC,
  PYTEST_CALC,
  regressionIn,
  STOP_AT_FIRST_FAILURE_CONFTEST,
  writeFiles,
} from "../../support/regression-project.js";

const command = (dir: string) =>
  `python3 -m pytest -p no:cacheprovider --junitxml=${dir}-logs/own-report.xml tests`;

async function project(files: Record<string, string>, onTestFinished: (f: () => Promise<void>) => void) {
  const dir = await mkdtemp(join(tmpdir(), "devflow-attack48-console-stop-"));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  onTestFinished(() => rm(`${dir}-logs`, { recursive: true, force: true }));
  await writeFiles(dir, { ...PYTEST_CALC, "tests/conftest.py": STOP_AT_FIRST_FAILURE_CONFTEST, ...files });
  return dir;
}

describe("attack 48: a conftest's shouldstop stands on regression's pytest console path", () => {
  it("a break of test_mul behind a known failure on base fails regression", async ({ onTestFinished }) => {
    const dir = await project(
      { "tests/test_a_legacy.py": "def test_legacy_needs_the_network():\n    assert False, 'offline'\n" },
      onTestFinished,
    );
    const base = await baselineIn(dir, command(dir), ["tests/test_add.py"], { logDir: `${dir}-logs` });
    expect(base.invocation).toBeNull();
    expect(base.consoleCommand).toContain("--maxfail=0");
    await writeFile(join(dir, "calc.py"), FIX_ADD_BREAK_MUL);
    const envelope = await regressionIn(dir, base, command(dir), "tests/test_add.py", ["calc.py"], {
      logDir: `${dir}-logs`,
    });
    expect(envelope.overall_result, envelope.summary).toBe("fail");
    expect(envelope.summary).toContain("test_mul");
  }, 120_000);

  it("a correct fix passes when a test broken on base runs after the seam's failure", async ({
    onTestFinished,
  }) => {
    const dir = await project(
      { "tests/test_z_legacy.py": "def test_legacy_needs_the_network():\n    assert False, 'offline'\n" },
      onTestFinished,
    );
    const base = await baselineIn(dir, command(dir), ["tests/test_add.py"], { logDir: `${dir}-logs` });
    expect(base.invocation).toBeNull();
    await writeFile(join(dir, "calc.py"), GOOD_CALC);
    const envelope = await regressionIn(dir, base, command(dir), "tests/test_add.py", ["calc.py"], {
      logDir: `${dir}-logs`,
    });
    expect(envelope.overall_result, envelope.summary).toBe("pass");
  }, 120_000);

  // A legacy test failing first, a seam after it: `-x` must not stop the run there.
  // Stop 51: a script's own PYTHONPATH gets devflow's folder appended, so the plugin loads there too;
  // where no shell can go before pytest (the `-m` argument of a python with an option of its own),
  // the PYTHONPATH `env` sets is all pytest gets, and base runs again without the plugin.
  it.for([
    { own: "PYTHONPATH=. python3 -m pytest", plugin: true },
    { own: "env PYTHONPATH=. python3 -W default -m pytest", plugin: false },
  ])(
    "a command setting its own PYTHONPATH (`$own`): plugin loaded $plugin, `-x` undone either way",
    { timeout: 120_000 },
    async ({ own: invocation, plugin }, { onTestFinished }) => {
      const dir = await project(
        {
          "tests/conftest.py": "",
          "tests/test_a_legacy.py": "def test_legacy_needs_the_network():\n    assert False, 'offline'\n",
        },
        onTestFinished,
      );
      const own = `${invocation} -x -p no:cacheprovider --junitxml=${dir}-logs/own-report.xml tests`;
      const base = await baselineIn(dir, own, ["tests/test_add.py"], { logDir: `${dir}-logs` });
      expect(base.ran, base.error ?? "").toBe(true);
      expect(base.consoleEnv != null).toBe(plugin);
      expect(base.consoleCommand?.includes("-p devflow_regression_count")).toBe(plugin);
      expect(base.consoleCommand?.includes("devflow-pytest-path")).toBe(plugin);
      if (!plugin) expect(base.consoleCommand).toContain("--maxfail=0");
      // Past the first failure on base (the seam's test_add comes after the legacy one).
      expect(base.tests).toMatchObject({ "tests/test_add.py::test_add": "fail" });
      await writeFile(join(dir, "calc.py"), FIX_ADD_BREAK_MUL);
      const envelope = await regressionIn(dir, base, own, "tests/test_add.py", ["calc.py"], {
        logDir: `${dir}-logs`,
      });
      expect(envelope.overall_result, envelope.summary).toBe("fail");
      expect(envelope.summary).toContain("test_mul");
    },
  );
});
