/**
 * Regression: mocha judged from its console (real mocha 10.8.2), where tests are named by their
 * last title only.
 *
 * Cause (found in stop 46): regression reads the console when it cannot get mocha's report. Two
 * things sent very common scripts there, and the console parse then hid breaks:
 * - `nyc --reporter=lcov mocha` (or `c8 --reporter=…`): the check for a `--reporter` of the
 *   project's own looked at the whole script, so nyc's flag counted as mocha's;
 * - on the console, mocha's failing tests (`  1) works`, numbered, no mark) were not read, and the
 *   fixture's five tests called `works` merged into one passing name. A fix that broke `clamp`
 *   passed: "all 1 test(s) green on base are still green". With one `works` already failing on base,
 *   the merged name failed on both sides, and the break was "still failing as on base".
 * Fix: a reporter flag counts only among mocha's own arguments (`insertAfter`'s `own_arguments`);
 * the console parser reads mocha's failures from its details after the last summary, by full title
 * (src/verify/mocha-spec-console.ts), and counts the passing tests of each name: the baseline pins
 * how many of each shared name passed (`sameNamePasses`), and an attempt with fewer fails.
 */
import { describe, expect, it } from "vitest";
import {
  breakClamp,
  brokenThenFixed,
  editFile,
  fixSlug,
  fixtureBaseline,
  fixtureProject,
  fixtureRegression,
} from "../support/fixture-regression.js";

const packageJson = (test: string) =>
  JSON.stringify({
    name: "fixture-mocha",
    private: true,
    scripts: { test },
    devDependencies: { mocha: "10.8.2" },
  });

/** A coverage wrapper as nyc and c8 are: takes its own `--reporter=`, then runs the command after it. */
const COVERAGE_WRAPPER = `const { spawnSync } = require("node:child_process");
const args = process.argv.slice(2).filter((a) => !a.startsWith("--reporter="));
const run = spawnSync(args[0], args.slice(1), { stdio: "inherit" });
process.exit(run.status ?? 1);
`;

/** Sorts last and fails on base: a known failure named like the five passing `works` tests. */
const KNOWN_FAILING_WORKS = `const assert = require("node:assert");
describe("network", () => { it("works", () => assert.fail("offline")); });
`;

describe("mocha's console, same-named tests", () => {
  it("a coverage wrapper's own --reporter no longer sends mocha to the console: judged by its report", async ({
    onTestFinished,
  }) => {
    const repo = await fixtureProject(
      "mocha",
      {
        "cov.js": COVERAGE_WRAPPER,
        "package.json": packageJson("node cov.js --reporter=lcov mocha 'test/**/*.test.js'"),
      },
      onTestFinished,
    );
    const base = await fixtureBaseline(repo, "npm test");
    expect(base.invocation?.runner).toBe("mocha");
    expect(base.report?.tests).toHaveLength(7);
    await fixSlug(repo);
    await breakClamp(repo);
    const broken = await fixtureRegression(repo, "npm test", base);
    expect(broken.overall_result).toBe("fail");
    expect(broken.summary).toContain("test/math.test.js > math clamp > works (fail)");
  }, 240_000);

  it("on the console, a break of one of five tests named `works` fails; the correct fix passes", async ({
    onTestFinished,
  }) => {
    const repo = await fixtureProject(
      "mocha",
      { "package.json": packageJson("mocha --reporter spec 'test/**/*.test.js'") },
      onTestFinished,
    );
    const base = await fixtureBaseline(repo, "npm test");
    expect(base.invocation).toBeNull();
    expect(base.tests).toEqual({ works: "pass", "slug > collapses repeated spaces": "fail" });
    expect(base.sameNamePasses).toEqual({ works: 5 });
    const { broken, fixed } = await brokenThenFixed(repo, "npm test", base);
    expect(broken.overall_result).toBe("fail");
    expect(broken.summary).toContain("works (1 of the 5 tests of that name green on base)");
    expect(fixed.overall_result, fixed.summary).toBe("pass");
    expect(fixed.summary).toContain("all 5 test(s) green on base are still green");
  }, 240_000);

  it("a test removed among the five named `works` is missing: only the count shows it", async ({
    onTestFinished,
  }) => {
    const repo = await fixtureProject(
      "mocha",
      { "package.json": packageJson("mocha --reporter spec 'test/**/*.test.js'") },
      onTestFinished,
    );
    const base = await fixtureBaseline(repo, "npm test");
    await fixSlug(repo);
    await editFile(
      repo,
      "test/math.test.js",
      'it("works", () => assert.strictEqual(clamp(5, 0, 3), 3));',
      "",
    );
    const removed = await fixtureRegression(repo, "npm test", base);
    expect(removed.overall_result).toBe("fail");
    expect(removed.summary).toContain("works (1 of the 5 tests of that name green on base) (now missing)");
  }, 240_000);

  it("a known failure sharing the name no longer hides a break", async ({ onTestFinished }) => {
    const repo = await fixtureProject(
      "mocha",
      {
        "package.json": packageJson("mocha --reporter spec 'test/**/*.test.js'"),
        "test/zz-network.test.js": KNOWN_FAILING_WORKS,
      },
      onTestFinished,
    );
    const base = await fixtureBaseline(repo, "npm test");
    expect(base.tests?.["network > works"]).toBe("fail");
    expect(base.sameNamePasses).toEqual({ works: 5 });
    const { broken, fixed } = await brokenThenFixed(repo, "npm test", base);
    expect(broken.overall_result).toBe("fail");
    expect(broken.summary).toContain("works (1 of the 5 tests of that name green on base)");
    // The known failure stays; every `works` that passed on base passes.
    expect(fixed.overall_result, fixed.summary).toBe("pass");
  }, 240_000);
});
