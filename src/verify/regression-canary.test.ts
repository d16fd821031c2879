import { mkdtemp, readdir, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  baselineIn,
  FIX_ADD_BREAK_MUL,
  GOOD_CALC,
  PYTEST_CALC,
  regressionIn,
  STOP_AT_FIRST_FAILURE_CONFTEST,
  writeFiles,
} from "../../test/support/regression-project.js";
import type { RegressionEnvelope } from "../artifacts/schemas/verifier-envelope.js";
import type { RegressionBaseline } from "./regression.js";
import { canaryNextTo } from "./regression-canary.js";

/**
 * Regression's pytest canary (ADR 0079), with real pytest runs. Cause of the bug it pins (ADR 0078,
 * known open): the seam's runs name their canary on pytest's command line, the regression run did
 * not have one, so program code that replaced pytest's test call whenever no canary was named hid a
 * broken test elsewhere in the suite and regression said "no regressions". Fix: the regression run
 * gets a canary pytest collects from a test folder, placed where the baseline's run on base showed
 * that pytest collects it.
 */
let dir: string;
const COMMAND = "python3 -m pytest -p no:cacheprovider tests";
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "devflow-regression-pin-"));
  await writeFiles(dir, PYTEST_CALC);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const GOOD = GOOD_CALC;

const baseline = (command = COMMAND, seamFiles = ["tests/test_add.py"]) =>
  baselineIn(dir, command, seamFiles);

/** The attempt's regression run, the seam's tests (those of `seamFile` on base) left out. */
const regression = (b: RegressionBaseline, command = COMMAND, seamFile = "tests/test_add.py") =>
  regressionIn(dir, b, command, seamFile, ["calc.py"]);

const payload = (e: RegressionEnvelope) => e.native_payload as Record<string, unknown>;

/**
 * Program code that turns pytest's test call into a no-op unless a canary file is named on the
 * command line, as the seam's runs name theirs.
 */
const SPARES_NAMED_CANARIES = [
  "import sys",
  "import _pytest.python",
  "",
  "def mul(a, b):",
  "    return a + b",
  "",
  "def add(a, b):",
  "    return a + b",
  "",
  'if not any("_devflow_canary_" in arg for arg in sys.argv):',
  "    _pytest.python.Function.runtest = lambda self: None",
  "",
].join("\n");

describe("regression's pytest canary", () => {
  it("is pinned on base next to the seam's file, left out of the baseline, and fails as required on an honest fix", async () => {
    const b = await baseline();
    expect(b.canary).toEqual({ status: "placed", next_to: "tests/test_add.py" });
    expect(b.report?.tests.map((t) => t.id.file).sort()).toEqual(["tests/test_add.py", "tests/test_mul.py"]);
    // Only the seam's test failed on base; the canary's failure is not the suite's.
    expect(b.exitCode).toBe(1);
    await writeFile(join(dir, "calc.py"), GOOD);
    const e = await regression(b);
    expect(e.overall_result).toBe("pass");
    expect(payload(e).canary).toEqual({ status: "failed_as_required", reason: null });
    expect(payload(e).tests_now).toBe(2);
    // The canary file is gone from the checkout.
    expect((await readdir(join(dir, "tests"))).filter((f) => f.includes("canary"))).toEqual([]);
  });

  it("a suite green on base records exit 0 although its canary failed", async () => {
    await writeFile(join(dir, "calc.py"), GOOD);
    const b = await baseline();
    expect(b.canary?.status).toBe("placed");
    expect(b.exitCode).toBe(0);
    const e = await regression(b);
    expect(e.overall_result).toBe("pass");
  });

  it("fails a run whose program code neuters pytest's test call unless a canary is named (ADR 0078's open attack)", async () => {
    const b = await baseline();
    await writeFile(join(dir, "calc.py"), SPARES_NAMED_CANARIES);
    const e = await regression(b);
    expect(e.overall_result).toBe("fail");
    expect(e.summary).toMatch(
      /^tamper: the regression run cannot fail: the canary test "test_devflow_seam_canary_\w+" passed/,
    );
    expect(payload(e).canary).toMatchObject({ status: "tampered" });
  });

  it("fails a run whose program code turns every failing test into a skip", async () => {
    const b = await baseline();
    await writeFile(
      join(dir, "calc.py"),
      [
        "import _pytest.python, pytest",
        "_run = _pytest.python.Function.runtest",
        "def _skip_failures(self):",
        "    try:",
        "        _run(self)",
        "    except AssertionError:",
        "        pytest.skip('flaky')",
        "_pytest.python.Function.runtest = _skip_failures",
        "def mul(a, b):",
        "    return a + b",
        "def add(a, b):",
        "    return a + b",
        "",
      ].join("\n"),
    );
    const e = await regression(b);
    expect(e.overall_result).toBe("fail");
    expect(e.summary).toContain("was reported skip");
  });

  it("fails when the file the canary was pinned next to is gone, so it cannot be placed again", async () => {
    const b = await baseline(COMMAND, ["tests/test_mul.py"]);
    expect(b.canary).toEqual({ status: "placed", next_to: "tests/test_mul.py" });
    await unlink(join(dir, "tests", "test_mul.py"));
    const e = await regression(b);
    expect(e.overall_result).toBe("fail");
    expect(e.summary).toContain(
      "the regression canary collected next to tests/test_mul.py on base could not run",
    );
  });

  it("runs without one, saying why, when pytest's python_files would not collect it", async () => {
    await writeFile(
      join(dir, "setup.cfg"),
      "[tool:pytest]\npythonpath = .\npython_files = test_add.py test_mul.py\n",
    );
    const b = await baseline();
    expect(b.canary).toMatchObject({ status: "not_run" });
    expect(b.canary?.status === "not_run" && b.canary.reason).toContain(
      "python_files (test_add.py test_mul.py)",
    );
    await writeFile(join(dir, "calc.py"), GOOD);
    const e = await regression(b);
    expect(e.overall_result).toBe("pass");
    expect(payload(e).canary).toMatchObject({ status: "not_run" });
  });

  it("a canary pytest does not collect on base is pinned as not run, not as placed", async () => {
    // A conftest.py that ignores every file it does not know: pytest never collects the canary.
    await writeFile(
      join(dir, "tests", "conftest.py"),
      'def pytest_ignore_collect(collection_path, config):\n    return collection_path.suffix == ".py" and "canary" in collection_path.name\n',
    );
    const b = await baseline();
    expect(b.canary).toMatchObject({ status: "not_run" });
    expect(b.canary?.status === "not_run" && b.canary.reason).toContain(
      "not collected there, or the run stopped before it",
    );
    expect(b.report?.tests).toHaveLength(2);
  });
});

/**
 * Regressions from the hostile review of this canary (stop 42). Cause: the canary's failure made
 * pytest exit 1 and counted towards `--maxfail`; devflow read "exit 1 with only the canary failing"
 * as green, which also swallowed an exit 1 set at session end (a coverage or leak check) and a
 * fixture teardown error pytest reported on the canary, and a `--maxfail` devflow did not see in
 * the command (`-o addopts=…`, `PYTEST_ADDOPTS`) stopped the base's run at the canary, so tests
 * after it were missing from the baseline. Fix: devflow's pytest plugin (`-p devflow_regression_count`)
 * takes the canary's own failure out of pytest's count and stop flags, so the exit status and how
 * far the run goes are the suite's; extra reports on the canary's file are kept as a run error.
 */
describe("regression's pytest canary leaves the suite's exit status and extent alone", () => {
  it("a session fixture's teardown error reported on the canary fails a suite green on base", async () => {
    await writeFile(join(dir, "calc.py"), `${GOOD}\ndef close():\n    pass\n`);
    await writeFile(
      join(dir, "tests", "conftest.py"),
      'import pytest\nimport calc\n\n@pytest.fixture(scope="session", autouse=True)\ndef resources():\n    yield\n    calc.close()\n',
    );
    // Next to test_mul.py the canary is the last test pytest runs, so the teardown error lands on it.
    const b = await baseline(COMMAND, ["tests/test_mul.py"]);
    expect(b.canary).toEqual({ status: "placed", next_to: "tests/test_mul.py" });
    expect(b.exitCode).toBe(0);
    await writeFile(
      join(dir, "calc.py"),
      `${GOOD}\ndef close():\n    raise RuntimeError("leaked connection")\n`,
    );
    const e = await regression(b, COMMAND, "tests/test_mul.py");
    expect(e.overall_result).toBe("fail");
    expect(e.summary).toContain("pytest reported a failure on devflow's regression canary besides its own");
  });

  it("an exit 1 set at session end with no failing test fails a suite green on base", async () => {
    await writeFile(join(dir, "calc.py"), `${GOOD}\ndef healthy():\n    return True\n`);
    await writeFile(
      join(dir, "tests", "conftest.py"),
      "import calc\n\ndef pytest_sessionfinish(session, exitstatus):\n    if not calc.healthy():\n        session.exitstatus = 1\n",
    );
    const b = await baseline();
    expect(b.canary?.status).toBe("placed");
    expect(b.exitCode).toBe(0);
    await writeFile(join(dir, "calc.py"), `${GOOD}\ndef healthy():\n    return False\n`);
    const e = await regression(b, COMMAND, "tests/test_add.py");
    expect(e.overall_result).toBe("fail");
    expect(e.summary).toContain("the suite was green on base (exit 0) and is red now (exit 1)");
  });

  // The seam fails on base (red). Without the plugin, --maxfail=2 stops at the canary, and -x and
  // --sw stop at the seam's test (test_mul after it never runs on base: ADR 0083).
  for (const command of [
    "python3 -m pytest -p no:cacheprovider -o addopts=--maxfail=2 tests",
    "PYTEST_ADDOPTS=--maxfail=2 python3 -m pytest -p no:cacheprovider tests",
    "python3 -m pytest -p no:cacheprovider -x tests",
    "python3 -m pytest -p no:cacheprovider --exitfirst tests",
    "python3 -m pytest -p no:cacheprovider -o addopts=-x tests",
    "python3 -m pytest --sw tests",
    "python3 -m pytest --sw-skip --maxfail=1 tests",
  ]) {
    it(`\`${command}\`: the run reaches every test on base, and the canary`, async () => {
      const b = await baseline(command);
      expect(b.canary?.status).toBe("placed");
      // test_mul is collected after test_add (the seam's, failing) and after the canary, and ran.
      expect(b.report?.tests.map((t) => `${t.id.file} ${t.status}`).sort()).toEqual([
        "tests/test_add.py fail",
        "tests/test_mul.py pass",
      ]);
      expect(b.exitCode).toBe(1);
      await writeFile(join(dir, "calc.py"), FIX_ADD_BREAK_MUL);
      // --sw keeps its state in .pytest_cache; this folder is no git checkout, so every file is "tracked".
      await rm(join(dir, ".pytest_cache"), { recursive: true, force: true });
      const e = await regression(b, command, "tests/test_add.py");
      expect(e.overall_result).toBe("fail");
      expect(e.summary).toContain("test_mul");
      expect(payload(e).canary).toMatchObject({ status: "failed_as_required" });
    });
  }

  // The same stop asked for by the project's own code (ADR 0083's open item, stop 45): pytest
  // honours it after the test's protocol, so the seam's failure on base used to end the run before
  // test_mul.
  const STOPPING_CONFTESTS: Record<string, string> = {
    "session.shouldstop from a report hook": STOP_AT_FIRST_FAILURE_CONFTEST,
    "session.shouldfail from logreport": [
      "_session = []",
      "",
      "def pytest_sessionstart(session):",
      "    _session.append(session)",
      "",
      "def pytest_runtest_logreport(report):",
      "    if report.failed:",
      '        _session[0].shouldfail = "the project fails fast"',
      "",
    ].join("\n"),
  };
  for (const [how, conftest] of Object.entries(STOPPING_CONFTESTS)) {
    it(`a conftest asking to stop (${how}): the run reaches every test on base, and the canary`, async () => {
      await writeFile(join(dir, "tests", "conftest.py"), conftest);
      const b = await baseline();
      expect(b.canary?.status).toBe("placed");
      expect(b.report?.tests.map((t) => `${t.id.file} ${t.status}`).sort()).toEqual([
        "tests/test_add.py fail",
        "tests/test_mul.py pass",
      ]);
      // The attempt fixes add (the seam) and breaks mul, which only a run past the stop sees.
      await writeFile(join(dir, "calc.py"), FIX_ADD_BREAK_MUL);
      const e = await regression(b);
      expect(e.overall_result).toBe("fail");
      expect(e.summary).toContain("test_mul");
      expect(payload(e).canary).toMatchObject({ status: "failed_as_required" });
    });
  }

  // A stop pytest cannot be talked out of (`pytest.exit` from the project's own conftest), after a
  // failure base already has: base's run and the attempt's end at the same place, and the tests
  // after it are in neither report (ADR 0083's open item, stop 45).
  const EXIT_AT_FIRST_FAILURE = [
    "import pytest",
    "",
    "def pytest_runtest_logreport(report):",
    '    if report.when == "call" and report.failed:',
    '        pytest.exit("the project stops at its first failure", returncode=1)',
    "",
  ].join("\n");
  const BROKEN_FIRST = {
    "tests/conftest.py": EXIT_AT_FIRST_FAILURE,
    // Sorts first; broken on base and left broken (it needs the network).
    "tests/test_a_network.py": 'def test_fetch():\n    raise OSError("offline")\n',
  };

  it("a stop the plugin cannot undo, behind a failure base has: a break after it fails, not passes", async () => {
    await writeFiles(dir, BROKEN_FIRST);
    const b = await baseline();
    expect(b.report?.tests.map((t) => `${t.id.file} ${t.status}`)).toEqual(["tests/test_a_network.py fail"]);
    // pytest was to run the canary, last: placed, so an attempt's run must reach it.
    expect(b.canary).toEqual({
      status: "placed",
      next_to: "tests/test_add.py",
      base_stopped_before_it: true,
    });
    // The attempt fixes add (the seam) and breaks mul: no run reaches test_mul.
    await writeFile(join(dir, "calc.py"), FIX_ADD_BREAK_MUL);
    const e = await regression(b);
    expect(e.overall_result).toBe("fail");
    expect(e.summary).toContain("the run stopped before its end");
    expect(e.summary).toContain("(base's run stopped before it too)");
  });

  it("the same stop when the attempt gets past it: a correct fix with base's broken test mended passes", async () => {
    await writeFiles(dir, BROKEN_FIRST);
    const b = await baseline();
    await writeFile(join(dir, "calc.py"), GOOD);
    await writeFile(join(dir, "tests", "test_a_network.py"), "def test_fetch():\n    pass\n");
    const e = await regression(b, COMMAND, "tests/test_add.py");
    expect(e.overall_result, e.summary).toBe("pass");
    expect(payload(e).canary).toMatchObject({ status: "failed_as_required" });
  });

  it("a neutering installed while the suite runs is caught: the canary runs last", async () => {
    await writeFile(
      join(dir, "tests", "test_mul.py"),
      "from calc import mul\n\ndef test_mul_one():\n    assert mul(1, 1) >= 1\n\ndef test_mul():\n    assert mul(3, 4) == 12\n",
    );
    const b = await baseline();
    expect(b.canary).toEqual({ status: "placed", next_to: "tests/test_add.py" });
    // mul's first call (in test_mul_one, after the canary's place by name) neuters every later test.
    await writeFile(
      join(dir, "calc.py"),
      "import _pytest.python\n\ndef mul(a, b):\n    _pytest.python.Function.runtest = lambda self: None\n    return a + b\n\ndef add(a, b):\n    return a + b\n",
    );
    const e = await regression(b, COMMAND, "tests/test_add.py");
    expect(e.overall_result).toBe("fail");
    expect(e.summary).toMatch(/^tamper: the regression run cannot fail/);
  });

  it("`--sw-skip`: the canary does not use up stepwise's one skipped failure on base", async () => {
    const command = "python3 -m pytest --sw-skip tests";
    await writeFile(
      join(dir, "calc.py"),
      "def mul(a, b):\n    return a + b\n\ndef add(a, b):\n    return a + b\n\ndef sub(a, b):\n    return a - b\n",
    );
    // The seam's first file (test_add.py, from beforeEach) is green on base; its red test is in
    // the second (test_mul.py, collected after the canary).
    await writeFile(
      join(dir, "tests", "test_sub.py"),
      "from calc import sub\n\ndef test_sub():\n    assert sub(5, 2) == 3\n",
    );
    const b = await baseline(command, ["tests/test_add.py", "tests/test_mul.py"]);
    expect(b.canary).toEqual({ status: "placed", next_to: "tests/test_add.py" });
    // As without a canary: test_mul fails (the one skip), test_sub runs green.
    expect(b.report?.tests.map((t) => `${t.id.file} ${t.status}`).sort()).toEqual([
      "tests/test_add.py pass",
      "tests/test_mul.py fail",
      "tests/test_sub.py pass",
    ]);
    await rm(join(dir, ".pytest_cache"), { recursive: true, force: true });
    // The attempt fixes mul (the seam) and breaks sub, green on base.
    await writeFile(
      join(dir, "calc.py"),
      "def mul(a, b):\n    return a * b\n\ndef add(a, b):\n    return a + b\n\ndef sub(a, b):\n    return a + b\n",
    );
    const e = await regression(b, command, "tests/test_mul.py");
    expect(e.overall_result).toBe("fail");
  });

  it("a style test over the project's files, green on base, stays green on base with the canary in the folder", async () => {
    await unlink(join(dir, "tests", "test_mul.py"));
    const command = "python3 -m pytest -p no:cacheprovider tests";
    await writeFile(join(dir, "calc.py"), "def add(a, b):\n    return a - b\n");
    await writeFile(
      join(dir, "tests", "test_add.py"),
      "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n",
    );
    await writeFile(
      join(dir, "tests", "test_style.py"),
      [
        "import pathlib",
        "",
        "ROOT = pathlib.Path(__file__).resolve().parent.parent",
        "",
        "",
        "def test_lines_fit_79_columns():",
        "    for path in [*ROOT.glob('*.py'), *ROOT.glob('tests/*.py')]:",
        "        for n, line in enumerate(path.read_text().splitlines(), 1):",
        "            assert len(line) <= 79, f'{path.name}:{n}'",
        "",
      ].join("\n"),
    );
    const b = await baseline(command, ["tests/test_add.py"]);
    expect(b.canary?.status).toBe("placed");
    expect(b.report?.tests.map((t) => `${t.id.title} ${t.status}`).sort()).toEqual([
      "test_add fail",
      "test_lines_fit_79_columns pass",
    ]);
    await writeFile(join(dir, "calc.py"), `def add(a, b):\n    return a + b  # ${"x".repeat(80)}\n`);
    const e = await regression(b, command, "tests/test_add.py");
    expect(e.overall_result).toBe("fail");
  });

  // Stop 51: a command setting its own PYTHONPATH gets devflow's folder appended, so it has its canary.
  it("a command that sets its own PYTHONPATH has its canary too", async () => {
    const b = await baseline("PYTHONPATH=. python3 -m pytest -p no:cacheprovider tests");
    expect(b.report?.complete).toBe(true);
    expect(b.report?.tests).toHaveLength(2);
    expect(b.canary).toMatchObject({ status: "placed" });
  });

  it("a command where devflow's folder cannot join its own PYTHONPATH keeps the base's report, without a canary", async () => {
    const command = "env PYTHONPATH=. python3 -W default -m pytest -p no:cacheprovider tests";
    const b = await baseline(command);
    expect(b.report?.complete).toBe(true);
    expect(b.report?.tests).toHaveLength(2);
    expect(b.canary).toMatchObject({ status: "not_run" });
    expect(b.canary?.status === "not_run" && b.canary.reason).toContain(
      "the base's run with a canary gave no complete report",
    );
  });
});

describe("canaryNextTo", () => {
  it("takes the seam's first pytest file, else the first tracked one", () => {
    expect(canaryNextTo(["src/a.py", "tests/test_a.py"], ["tests/test_z.py"])).toBe("tests/test_a.py");
    expect(canaryNextTo(["a.test.js"], ["tests/z_test.py", "tests/test_b.py", "lib/x.py"])).toBe(
      "tests/test_b.py",
    );
    expect(canaryNextTo([], ["lib/x.py"])).toBeNull();
  });
});
