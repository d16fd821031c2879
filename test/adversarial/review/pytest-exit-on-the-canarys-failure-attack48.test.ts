/**
 * Hostile review (attack 48, of stop 45's `base_stopped_before_it` pin in pinOnBase,
 * src/verify/regression.ts, and STOPPED_BEFORE_THE_CANARY in src/verify/regression-canary.ts):
 * FALSE REJECTION of a correct fix.
 *
 * Attack: an honest project whose conftest ends the run at the first failure with `pytest.exit`,
 * written as the usual `pytest_runtest_makereport` hookwrapper (`rep = outcome.get_result();
 * if rep.failed: pytest.exit(...)`). Base is red only on the seam's own test (tests/test_add.py),
 * which is what every seam's base looks like. The attempt is the correct fix (GOOD_CALC), nothing
 * else changes.
 *
 * Why it works: on base the run exits at the seam's failure, the canary was scheduled (mark file
 * written) and never reported, so base pins it `placed` with `base_stopped_before_it: true`. On the
 * attempt every test of the suite passes and the run reaches the canary, as required, but the
 * canary FAILS ON PURPOSE, and the project's own hook answers that failure with `pytest.exit` from
 * inside makereport: the canary's report is never made nor logged, so it is absent from the report,
 * and devflow judges the run "stopped before its end" / the canary not failing as required. Every
 * correct fix of such a project is rejected; before stop 45 the base pinned no canary and the fix
 * passed. (The `pytest_runtest_logreport` shape used in regression-canary.test.ts happens to log
 * the canary's report before the hook raises; the makereport shape does not.)
 *
 * Suggested fix: the canary's deliberate failure must not be visible to the project's own failure
 * hooks as a stop trigger: e.g. the plugin turns an `Exit`/`KeyboardInterrupt` raised during the
 * canary's own protocol into the canary's recorded failure (a tryfirst makereport wrapper that
 * catches `pytest.exit.Exception` for canary items and returns the failed report), or judge a run
 * whose canary item started its call (the plugin writes a second mark from the canary's
 * `pytest_runtest_call`) as "reached the canary" rather than "stopped before it".
 *
 * Fixed (stop 45), was `it.fails`: while the canary's protocol runs (last), devflow's plugin makes
 * `pytest.exit` a no-op, so the canary's failed report is made and logged. Base's JUnit file also
 * held a nameless `<testcase/>` pytest writes when a hook exits inside a report; it was read as a
 * passing test named "pytest", then "missing" on the attempt. junit.ts now skips a nameless
 * testcase (one that failed is a run error).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  baselineIn,
  GOOD_CALC,
  PYTEST_CALC,
  regressionIn,
  writeFiles,
} from "../../support/regression-project.js";

const COMMAND = "python3 -m pytest -p no:cacheprovider tests";

const EXIT_AT_FIRST_FAILURE_MAKEREPORT = [
  "import pytest",
  "",
  "@pytest.hookimpl(hookwrapper=True)",
  "def pytest_runtest_makereport(item, call):",
  "    outcome = yield",
  "    rep = outcome.get_result()",
  '    if rep.when == "call" and rep.failed:',
  '        pytest.exit("the project stops at its first failure", returncode=1)',
  "",
].join("\n");

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "devflow-attack48-exit-"));
  await writeFiles(dir, { ...PYTEST_CALC, "tests/conftest.py": EXIT_AT_FIRST_FAILURE_MAKEREPORT });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("attack 48: a project that pytest.exit's at its first failure, the canary's failure included", () => {
  it("the correct fix of the seam's test passes regression", async () => {
    const base = await baselineIn(dir, COMMAND, ["tests/test_add.py"]);
    // Base stops at the seam's failure, before the canary.
    expect(base.canary).toEqual({
      status: "placed",
      next_to: "tests/test_add.py",
      base_stopped_before_it: true,
    });
    await writeFile(join(dir, "calc.py"), GOOD_CALC);
    const envelope = await regressionIn(dir, base, COMMAND, "tests/test_add.py", ["calc.py"]);
    expect(envelope.overall_result, envelope.summary).toBe("pass");
  }, 120_000);
});
