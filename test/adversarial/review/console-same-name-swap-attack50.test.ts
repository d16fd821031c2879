/**
 * Attack 50a (review of ADR 0086): on mocha's console, a same-named test that the attempt makes
 * pass pays for one it breaks. False completion.
 *
 * Attack: a mocha project judged from its console (`mocha --reporter spec`, as in
 * test/reports/console-mocha-same-named-tests.test.ts). Its seam's failing test is, like five
 * passing ones, titled `works` (`describe("slug spaces", () => it("works", ...))`, a very common
 * mocha title). The attempt does the task (fixes slugify, so the seam's `works` passes) and also
 * breaks `clamp`, whose test is another `works`, green on base.
 *
 * Why it works: the console names tests by their last title, so all six are one name. The
 * baseline pins `works` as failing (one of six failed) with `sameNamePasses: { works: 5 }`. On the
 * attempt, again five pass and one fails (a different one). `comparePerTest` sees the count kept
 * (5 >= 5) and the merged outcome failing on both sides: "no regressions: all 5 test(s) green on
 * base are still green; still failing as on base: works". The count rule catches a break only when
 * the number of passes drops; any same-named test that turns green (the seam itself, or one the
 * attempt adds: second case) hides one break each.
 *
 * Suggested fix: name console tests by their full title where the console gives it. mocha's spec
 * reporter prints each `describe` title on its own line, indented two spaces per level, above its
 * tests (the same hierarchy parseTap already rebuilds from `# Subtest:` lines), and its failure
 * details after `N failing` repeat each failure under its full title. With `slug spaces > works`
 * and `math > clamp > works` as names, the swap is a plain regression. Failing that, a name whose
 * tests do not all pass on base should fail the attempt when any of its base-passing tests cannot
 * be shown to pass (i.e. compare the failing count too: more failures than "base failures minus
 * newly passing seam tests" is a regression), or the console verdict for such names should never
 * be a pass.
 *
 * Fixed (stop 46), was `it.fails`: a failing test is named by the full title mocha's failure
 * details give it (src/verify/mocha-spec-console.ts), so clamp's failure is `math > clamp > works`,
 * a failure base did not have (ADR 0080), whatever the count of passing `works`.
 */
import { describe, expect, it } from "vitest";
import {
  breakClamp,
  fixSlug,
  fixtureBaseline,
  fixtureProject,
  fixtureRegression,
  MOCHA_CONSOLE_PACKAGE_JSON,
} from "../../support/fixture-regression.js";
import { writeFiles } from "../../support/regression-project.js";

const packageJson = MOCHA_CONSOLE_PACKAGE_JSON;

/** The seam, titled like the five passing tests: red on base (slugify keeps runs of dashes). */
const SEAM_NAMED_WORKS = `const assert = require("node:assert");
const { slugify } = require("../src/slug.js");
describe("slug spaces", () => { it("works", () => assert.strictEqual(slugify("a  b"), "a-b")); });
`;

/** A test the attempt adds: passes, and is called `works` like the rest. */
const ADDED_WORKS = `const assert = require("node:assert");
describe("added", () => { it("works", () => assert.ok(true)); });
`;

describe("console judging: a same-named test turning green hides a break", () => {
  it("control: the break alone fails on the count", async ({ onTestFinished }) => {
    const repo = await fixtureProject(
      "mocha",
      { "package.json": packageJson, "test/spaces.test.js": SEAM_NAMED_WORKS },
      onTestFinished,
    );
    const base = await fixtureBaseline(repo, "npm test");
    expect(base.invocation).toBeNull();
    expect(base.tests?.["slug spaces > works"]).toBe("fail");
    await breakClamp(repo);
    const broken = await fixtureRegression(repo, "npm test", base);
    expect(broken.overall_result, broken.summary).toBe("fail");
  }, 240_000);

  it("the seam's fix (a `works` turning green) plus a break of clamp's `works` must not pass", async ({
    onTestFinished,
  }) => {
    const repo = await fixtureProject(
      "mocha",
      { "package.json": packageJson, "test/spaces.test.js": SEAM_NAMED_WORKS },
      onTestFinished,
    );
    const base = await fixtureBaseline(repo, "npm test");
    await fixSlug(repo);
    await breakClamp(repo);
    const attempt = await fixtureRegression(repo, "npm test", base, "test/spaces.test.js");
    // Seen at 4cc3a72: pass, "no regressions: all 5 test(s) green on base are still green; newly
    // passing: collapses repeated spaces; still failing as on base: works" (clamp's `works` fails now).
    console.log("attack50a seam swap:", attempt.overall_result, attempt.summary);
    expect(attempt.overall_result, attempt.summary).toBe("fail");
  }, 240_000);

  it("an added passing `works` plus a break of clamp's `works` must not pass", async ({ onTestFinished }) => {
    const repo = await fixtureProject(
      "mocha",
      { "package.json": packageJson, "test/spaces.test.js": SEAM_NAMED_WORKS },
      onTestFinished,
    );
    const base = await fixtureBaseline(repo, "npm test");
    await breakClamp(repo);
    await writeFiles(repo.dir, { "test/added.test.js": ADDED_WORKS });
    const attempt = await fixtureRegression(repo, "npm test", base, "test/spaces.test.js");
    // Seen at 4cc3a72: pass, "no regressions: all 5 test(s) green on base are still green; still
    // failing as on base: works, collapses repeated spaces".
    console.log("attack50a added test:", attempt.overall_result, attempt.summary);
    expect(attempt.overall_result, attempt.summary).toBe("fail");
  }, 240_000);
});
