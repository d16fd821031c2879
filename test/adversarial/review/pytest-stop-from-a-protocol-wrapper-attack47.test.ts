/**
 * Hostile review (attack 47, of stop 45's `pytest_runtest_protocol` wrapper in
 * src/verify/pytest-plugin/devflow_regression_count.py): FALSE COMPLETION.
 *
 * Attack: base's own conftest asks pytest to stop at the first failure, and does it the way a
 * "stop after a failure" hook is most naturally written around a whole test: a hookwrapper of
 * `pytest_runtest_protocol` that sets `item.session.shouldstop` after its `yield` (old-style
 * `hookwrapper=True` or new-style `wrapper=True`, the same). Base has a known failure
 * (tests/test_a_legacy.py) that sorts before the test the attempt breaks (tests/test_mul.py).
 *
 * Why it works: devflow's plugin takes the stop back in a `pytest_runtest_protocol` hookwrapper of
 * its own, but pluggy calls wrappers in reverse order of registration: devflow's plugin is loaded
 * with `-p` (registered early), a conftest is registered later, so the conftest's wrapper is the
 * OUTER one. Its code after `yield` runs after devflow's wrapper has already "unset" the stop, the
 * stop stands, and pytest's run loop honours it (main.py `pytest_runtestloop`). Base's run stops at
 * the legacy failure: test_add, test_mul and the canary never run, so the base pins no canary
 * ("not_run") and names only the legacy test. Every attempt's run stops at the same place (the
 * legacy test still fails), the broken test_mul is in neither report, and regression says "no
 * regressions". (`tryfirst=True` on devflow's wrapper would not close it either: a conftest wrapper
 * with `tryfirst=True`, registered later, is outer again.)
 *
 * The ADR 0083 claim "a conftest that sets session.shouldstop or session.shouldfail on a failure"
 * is handled holds only for stops set inside the protocol (makereport/logreport hooks), not for a
 * stop set by an outer protocol wrapper.
 *
 * Suggested fix: do not rely on hook ordering. Either make the session ignore stop requests for the
 * whole run (in `pytest_sessionstart`, swap the session's class for a subclass whose
 * `shouldstop`/`shouldfail` properties read False and drop writes), or detect the cut: the plugin
 * records the collected items and those whose protocol ran, and a run that ended with collected
 * tests never run (other than by devflow's own choice) makes the report a run error on base and now.
 *
 * No known failure is needed when the attempt's own program code adds a stop: base's run is cut at
 * the seam's own failure (so no canary is pinned and nothing after the seam has a result on base);
 * the attempt's calc.py (program code, not test setup) registers a protocol wrapper of its own that
 * stops pytest right after the seam's test passes (not before a canary, so the seam's own runs are
 * unaffected). test_mul is missing on both sides and its break passes.
 *
 * Control: the same project with the stop set in a `pytest_runtest_makereport` wrapper (inside the
 * protocol, the stop-45 case) is judged correctly: test_mul's break fails regression.
 *
 * Fixed (stop 45): at session start devflow's plugin swaps the session's class for a subclass on
 * which `shouldstop` and `shouldfail` always read False and drop writes, whoever sets them and
 * from whatever hook. The cases below were `it.fails` until then; with the swap disabled all three
 * fail again.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  baselineIn,
  FIX_ADD_BREAK_MUL,
  PYTEST_CALC,
  regressionIn,
  STOP_AT_FIRST_FAILURE_CONFTEST,
  writeFiles,
} from "../../support/regression-project.js";

const COMMAND = "python3 -m pytest -p no:cacheprovider tests";

/** A known failure on base that sorts before the seam's file and the file the attempt breaks. */
const LEGACY = "def test_legacy_needs_the_network():\n    assert False, 'known broken on base'\n";

const OUTER_WRAPPERS: Record<string, string> = {
  "hookwrapper=True": [
    "import pytest",
    "",
    "@pytest.hookimpl(hookwrapper=True)",
    "def pytest_runtest_protocol(item, nextitem):",
    "    yield",
    "    if item.session.testsfailed:",
    '        item.session.shouldstop = "the project stops at its first failure"',
    "",
  ].join("\n"),
  "wrapper=True": [
    "import pytest",
    "",
    "@pytest.hookimpl(wrapper=True)",
    "def pytest_runtest_protocol(item, nextitem):",
    "    result = yield",
    "    if item.session.testsfailed:",
    '        item.session.shouldfail = "the project fails fast"',
    "    return result",
    "",
  ].join("\n"),
};

/**
 * The attempt's calc.py: the seam's fix, mul broken, and, on import, a protocol wrapper registered
 * with pytest's plugin manager (found through the garbage collector) that stops the run right after
 * the seam's test, unless a canary comes next.
 */
const PROGRAM_CODE_STOPS_AFTER_THE_SEAM = [
  "import gc",
  "import pytest",
  "",
  "def mul(a, b):",
  "    return a + b",
  "",
  "def add(a, b):",
  "    return a + b",
  "",
  "class _StopAfterSeam:",
  "    @pytest.hookimpl(hookwrapper=True)",
  "    def pytest_runtest_protocol(self, item, nextitem):",
  "        yield",
  '        if item.name == "test_add" and nextitem is not None and "canary" not in nextitem.nodeid:',
  '            item.session.shouldstop = "done"',
  "",
  "for _o in gc.get_objects():",
  '    if type(_o).__name__ == "Config" and hasattr(_o, "pluginmanager"):',
  "        _o.pluginmanager.register(_StopAfterSeam())",
  "        break",
  "",
].join("\n");

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "devflow-attack47-stop-"));
  await writeFiles(dir, { ...PYTEST_CALC, "tests/test_a_legacy.py": LEGACY });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function breakAfterKnownFailure(conftest: string) {
  await writeFile(join(dir, "tests", "conftest.py"), conftest);
  const base = await baselineIn(dir, COMMAND, ["tests/test_add.py"]);
  // The attempt fixes add (the seam) and breaks mul; base's conftest is unchanged.
  await writeFile(join(dir, "calc.py"), FIX_ADD_BREAK_MUL);
  const envelope = await regressionIn(dir, base, COMMAND, "tests/test_add.py", ["calc.py"]);
  return { base, envelope };
}

describe("attack 47: base's conftest stops the run from an outer pytest_runtest_protocol wrapper", () => {
  for (const [how, conftest] of Object.entries(OUTER_WRAPPERS)) {
    it(`(${how}) a break of test_mul behind base's known failure fails regression`, async () => {
      const { base, envelope } = await breakAfterKnownFailure(conftest);
      // Correct behaviour: base's run reaches every test (as it does for the stop-45 shapes) ...
      expect(base.report?.tests.map((t) => `${t.id.file} ${t.status}`).sort()).toEqual([
        "tests/test_a_legacy.py fail",
        "tests/test_add.py fail",
        "tests/test_mul.py pass",
      ]);
      // ... and the attempt that breaks test_mul is not passed.
      expect(envelope.overall_result, envelope.summary).toBe("fail");
      expect(envelope.summary).toContain("test_mul");
    }, 120_000);
  }

  it("with no known failure: the attempt's program code stops pytest after the seam, and the break of test_mul fails regression", async () => {
    await writeFile(join(dir, "tests", "test_a_legacy.py"), "def test_legacy_is_fine():\n    assert True\n");
    await writeFile(join(dir, "tests", "conftest.py"), OUTER_WRAPPERS["hookwrapper=True"] ?? "");
    const base = await baselineIn(dir, COMMAND, ["tests/test_add.py"]);
    await writeFile(join(dir, "calc.py"), PROGRAM_CODE_STOPS_AFTER_THE_SEAM);
    const envelope = await regressionIn(dir, base, COMMAND, "tests/test_add.py", ["calc.py"]);
    expect(envelope.overall_result, envelope.summary).toBe("fail");
    expect(envelope.summary).toContain("test_mul");
  }, 120_000);

  it("control: the same stop set inside the protocol (a makereport wrapper) is taken back", async () => {
    const { base, envelope } = await breakAfterKnownFailure(STOP_AT_FIRST_FAILURE_CONFTEST);
    expect(base.canary?.status).toBe("placed");
    expect(envelope.overall_result, envelope.summary).toBe("fail");
    expect(envelope.summary).toContain("test_mul");
  }, 120_000);
});
