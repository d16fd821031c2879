/**
 * Attack 50d (review of ADR 0086): on mocha's console, a numbered line the program or a test prints
 * is read as a failing test, and a correct fix that changes that line is rejected. False rejection,
 * new with 4cc3a72 (before it, numbered lines were not read).
 *
 * Attack (an honest project): a mocha project judged from its console (`mocha --reporter spec`).
 * One test logs what the code under test produces as a numbered list (a CLI's menu, a report, a
 * debugging `console.log` of results: `  1) hello--world`). The correct fix of slugify changes
 * that line to `  1) hello-world`.
 *
 * Why it happens: `parseCheckMarks` reads every line matching `^\s+\d+\) (.+)$` before the first
 * `N failing` line as a failing test, in any output with an `N passing` line. On base the program's
 * line is a failing "test" `hello--world`; on the fix it is a failing test `hello-world` that base
 * did not have, and `comparePerTest` rejects: "1 test(s) fail now that did not fail on base:
 * hello-world". (The same line left unchanged would pin a phantom known failure; one printed only
 * on the attempt, e.g. a fix that adds a numbered warning, is also a new failure.)
 *
 * Suggested fix: read a numbered line as a failure only when mocha confirms it: its failure details
 * after the final `N failing` list each failure again with the same number (`  1) suite\n
 * title:`), and `N failing` gives their count. Take the numbers 1..N from the details (the last `N
 * failing` of the output), and only the listing lines carrying those numbers, each once, in order;
 * any other numbered line is output, not a test.
 *
 * Fixed (stop 46), was `it.fails`: failures are read from mocha's details after its last summary,
 * never from numbered lines in the listing.
 */
import { describe, expect, it } from "vitest";
import {
  fixSlug,
  fixtureBaseline,
  fixtureProject,
  fixtureRegression,
  MOCHA_CONSOLE_PACKAGE_JSON,
} from "../../support/fixture-regression.js";

const packageJson = MOCHA_CONSOLE_PACKAGE_JSON;

/** A passing test that logs the program's output as a numbered list. */
const LISTS_SLUGS = `const assert = require("node:assert");
const { slugify } = require("../src/slug.js");
describe("report", () => {
  it("lists the slugs", () => {
    const lines = ["Hello  World"].map((t, i) => "  " + (i + 1) + ") " + slugify(t));
    console.log(lines.join("\\n"));
    assert.strictEqual(lines.length, 1);
  });
});
`;

describe("mocha's console: numbered lines a test prints", () => {
  it("the correct fix of slugify, which changes a numbered line a test logs, passes", async ({
    onTestFinished,
  }) => {
    const repo = await fixtureProject(
      "mocha",
      { "package.json": packageJson, "test/report.test.js": LISTS_SLUGS },
      onTestFinished,
    );
    const base = await fixtureBaseline(repo, "npm test");
    expect(base.invocation).toBeNull();
    // Seen at 4cc3a72: the logged line is a failing test on base.
    console.log("attack50d base tests:", JSON.stringify(base.tests));
    await fixSlug(repo);
    const fixed = await fixtureRegression(repo, "npm test", base);
    // Seen at 4cc3a72: fail, "1 test(s) fail now that did not fail on base: hello-world".
    console.log("attack50d fix:", fixed.overall_result, fixed.summary);
    expect(fixed.overall_result, fixed.summary).toBe("pass");
  }, 240_000);
});
