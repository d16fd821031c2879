/**
 * Hostile review (attack 47, of stop 45's console PATH, ADR 0084, against ADR 0083's "regression's
 * runs reach every test"): FALSE COMPLETION and FALSE REJECTION through regression's console
 * fallback, with real mocha 10.8.2 runs.
 *
 * Attack: the project's test command is a runner devflow recognises but cannot ask for a report
 * (here `mocha --bail --reporter tap 'test/**\/*.test.js'`: the command names its own reporter, so
 * mocha's adapter answers "unsupported"; pytest with its own `--junitxml` is the same). The base's
 * report run gives no report, so the baseline and every attempt fall back to `runOnConsole`, which
 * runs the command exactly as written. ADR 0083's every-test arguments (`--no-bail` and the
 * `mocha-no-suite-bail.cjs` require, jest's/vitest's `--bail=0`, devflow's pytest plugin) are added
 * only by `withEveryTestRun` in report runs (`reportRunOf` says `runEveryTest`), never on the console
 * path, so `--bail` stays on base and on every attempt:
 *   - a known failure that runs before the test the attempt breaks stops both runs at the same
 *     place; the broken test is in neither console output and regression says "no regressions"
 *     (false completion; the attack-45 shape, back on the console path);
 *   - a test already broken on base that runs after the seam's failing test never runs on base; a
 *     correct fix lets the run go on and is rejected for it as "failing now, not on base" (false
 *     rejection; the stop-43 shape ADR 0083 was written to fix).
 *
 * Why stop 45 matters here: before it, the console runs had the caller's PATH, so a bare `mocha`
 * (the user's install, linked into the checkout) ended "`mocha …` was not found" on base and the run
 * was blocked (fail closed). `runOnConsole` now puts the install's `.bin` on PATH (as intended), so
 * this command runs, with its stop intact. (`npx mocha …` and `npm test` reached the same path before.)
 *
 * Suggested fix: give the console fallback the same every-test treatment when the command names a
 * runner devflow knows (the baseline's `resolveInvocation` result): `withEveryTestRun` on the
 * console command (mocha's `--no-bail --require …`, jest/vitest `--bail=0`, pytest `-p
 * devflow_regression_count` / `--maxfail=0`), or fail closed (an error on base, "the suite stops at
 * its first failure and devflow cannot undo it on the console") when that cannot be done.
 *
 * Control: the same project and command without `--bail` catches the break by name.
 *
 * Fixed (stop 45): when base resolved the command to a runner devflow knows but could not ask for
 * its report, the console runs (base's and each attempt's) run the base's pinned script with that
 * runner's every-test arguments (`everyTestConsoleCommand`, pinned in the baseline as
 * `consoleCommand`). The cases below were `it.fails` until then.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  breakClamp,
  fixSlug,
  fixtureBaseline,
  fixtureProject,
  fixtureRegression,
} from "../../support/fixture-regression.js";
import {
  baselineIn,
  FIX_ADD_BREAK_MUL,
  PYTEST_CALC,
  regressionIn,
  writeFiles,
} from "../../support/regression-project.js";

const BAIL = "mocha --bail --reporter tap 'test/**/*.test.js'";
const NO_BAIL = "mocha --reporter tap 'test/**/*.test.js'";

/** Sorts before test/math.test.js and test/slug.test.js: broken on base, for reasons of its own. */
const EARLY_KNOWN_FAILURE = {
  "test/a-legacy.test.js": `const assert = require("node:assert");
describe("legacy", () => {
  it("needs the network", () => assert.fail("offline"));
});
`,
};

/** Sorts after the seam's test/slug.test.js: broken on base, for reasons of its own. */
const LATE_KNOWN_FAILURE = {
  "test/zz-legacy.test.js": `const assert = require("node:assert");
describe("zz", () => {
  it("needs the network", () => assert.fail("offline"));
});
`,
};

describe("attack 47: the console fallback runs a recognised runner with its own --bail", () => {
  it("a break of clamp behind a known failure fails regression (was a false completion)", async ({
    onTestFinished,
  }) => {
    const repo = await fixtureProject("mocha", EARLY_KNOWN_FAILURE, onTestFinished);
    const base = await fixtureBaseline(repo, BAIL);
    expect(base.ran, base.error ?? "").toBe(true);
    // Judged from the console: mocha's report could not be asked for (the command names a reporter).
    expect(base.invocation).toBeNull();
    await fixSlug(repo);
    await breakClamp(repo);
    const envelope = await fixtureRegression(repo, BAIL, base);
    expect(envelope.overall_result, envelope.summary).toBe("fail");
    expect(envelope.summary).toContain("clamp");
  }, 240_000);

  it("a correct fix passes although a test already broken on base runs after the seam (was a false rejection)", async ({
    onTestFinished,
  }) => {
    const repo = await fixtureProject("mocha", LATE_KNOWN_FAILURE, onTestFinished);
    const base = await fixtureBaseline(repo, BAIL);
    expect(base.ran, base.error ?? "").toBe(true);
    await fixSlug(repo);
    const envelope = await fixtureRegression(repo, BAIL, base);
    expect(envelope.overall_result, envelope.summary).toBe("pass");
  }, 240_000);

  it("control: without --bail the same break is caught by name", async ({ onTestFinished }) => {
    const repo = await fixtureProject("mocha", EARLY_KNOWN_FAILURE, onTestFinished);
    const base = await fixtureBaseline(repo, NO_BAIL);
    expect(base.invocation).toBeNull();
    await fixSlug(repo);
    await breakClamp(repo);
    const envelope = await fixtureRegression(repo, NO_BAIL, base);
    expect(envelope.overall_result, envelope.summary).toBe("fail");
    expect(envelope.summary).toContain("clamp");
  }, 240_000);
});

describe("attack 47: the same console fallback for pytest (not new in stop 45: python3 was always on PATH)", () => {
  // The command writes its own junit report, so devflow cannot ask for one: no plugin, no
  // `--maxfail=0`, and `-x` stays on base and on the attempt.
  const command = (dir: string) =>
    `python3 -m pytest -x -p no:cacheprovider --junitxml=${dir}-logs/own-report.xml tests`;
  it("a break of mul behind a known failure fails regression (was a false completion)", async ({
    onTestFinished,
  }) => {
    const dir = await mkdtemp(join(tmpdir(), "devflow-attack47-console-pytest-"));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    await writeFiles(dir, {
      ...PYTEST_CALC,
      "tests/test_a_legacy.py": "def test_legacy_needs_the_network():\n    assert False, 'offline'\n",
    });
    const COMMAND = command(dir);
    const base = await baselineIn(dir, COMMAND, ["tests/test_add.py"], { logDir: `${dir}-logs` });
    expect(base.invocation).toBeNull();
    await writeFile(join(dir, "calc.py"), FIX_ADD_BREAK_MUL);
    const envelope = await regressionIn(dir, base, COMMAND, "tests/test_add.py", ["calc.py"], {
      logDir: `${dir}-logs`,
    });
    onTestFinished(() => rm(`${dir}-logs`, { recursive: true, force: true }));
    expect(envelope.overall_result, envelope.summary).toBe("fail");
    expect(envelope.summary).toContain("test_mul");
  }, 120_000);
});
