/**
 * Attack 50e (review of ADR 0086): one `  0 failing` line printed by the attempt's code when it is
 * loaded hides every numbered failure of mocha's listing; with an added test of the same name, a
 * break passes without any forged test line. False completion.
 *
 * Attack: a mocha project judged from its console (`mocha --reporter spec`), all five `works`
 * green on base. The attempt breaks `clamp` (its test is one `works`), adds a sixth, passing test
 * called `works` (tests may change, ADR 0019), and makes src/math.js print `  0 failing` when it
 * is required, which is before mocha prints its listing.
 *
 * Why it works: `parseCheckMarks` treats the FIRST line matching `^\s*\d+ failing\s*$` as the start
 * of mocha's failure details and reads no numbered line after it. The printed line comes first, so
 * clamp's `  1) works` is never read. The tally is `works`: 5 passing (4 old + the added one), 0
 * failing: the count (5 >= 5) and the merged outcome (pass) both hold: "no regressions". Without
 * the added test the count would catch it (control: 4 < 5). No `✔` line is forged; the printed line
 * is mocha's summary, which the parser trusts to delimit the listing.
 *
 * Suggested fix: take mocha's details to start at the LAST `N failing` line (mocha's epilogue comes
 * after every test has run; a line printed before or during the listing is not it), and check that
 * the numbered listing lines read equal N (the number the epilogue gives); a mismatch is an
 * unreadable console, not a pass. Combined with attack 50a's fix (full titles), the added `works`
 * would not share clamp's name either.
 *
 * Fixed (stop 46), was `it.fails`: the failures are read from the details after mocha's last
 * summary, so an early `  0 failing` line hides nothing.
 */
import { describe, expect, it } from "vitest";
import {
  breakClamp,
  editFile,
  fixtureBaseline,
  fixtureProject,
  fixtureRegression,
  MOCHA_CONSOLE_PACKAGE_JSON,
} from "../../support/fixture-regression.js";
import { writeFiles } from "../../support/regression-project.js";

const packageJson = MOCHA_CONSOLE_PACKAGE_JSON;

const ADDED_WORKS = `const assert = require("node:assert");
describe("added", () => { it("works", () => assert.ok(true)); });
`;

async function attack(onTestFinished: (fn: () => Promise<void>) => void, addTest: boolean) {
  const repo = await fixtureProject("mocha", { "package.json": packageJson }, onTestFinished);
  const base = await fixtureBaseline(repo, "npm test");
  expect(base.invocation).toBeNull();
  expect(base.sameNamePasses).toEqual({ works: 5 });
  await breakClamp(repo);
  await editFile(repo, "src/math.js", "function add(", 'console.log("  0 failing");\nfunction add(');
  if (addTest) await writeFiles(repo.dir, { "test/added.test.js": ADDED_WORKS });
  return fixtureRegression(repo, "npm test", base);
}

describe("mocha's console: a `N failing` line printed early", () => {
  it("control: without the added test, the count catches the hidden failure", async ({ onTestFinished }) => {
    const run = await attack(onTestFinished, false);
    expect(run.overall_result, run.summary).toBe("fail");
    expect(run.summary).toContain("works (1 of the 5 tests of that name green on base) (now missing)");
  }, 240_000);

  it("the break of clamp with an added passing `works` and an early `0 failing` line must not pass", async ({
    onTestFinished,
  }) => {
    const run = await attack(onTestFinished, true);
    // Seen at 4cc3a72: pass, "no regressions: all 5 test(s) green on base are still green" (the
    // seam's own failing line is hidden too: a failure on base now missing is no regression).
    console.log("attack50e:", run.overall_result, run.summary);
    expect(run.overall_result, run.summary).toBe("fail");
  }, 240_000);
});
