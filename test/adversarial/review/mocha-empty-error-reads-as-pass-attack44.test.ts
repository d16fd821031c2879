/**
 * Hostile review (attack 44): mocha's JSON report says a test failed with an EMPTY `err` object,
 * and devflow reads that as a pass. Nothing is fixed.
 *
 * `parseMochaJson` (src/verify/test-reports/mocha.ts) decides a test's status from its own entry in
 * the `tests` array: `fail` only when `test.err` has at least one key; the `failures` array is read
 * only for hook failures (tests not in `tests`). mocha's json reporter serialises an Error through
 * `errorJSON`, which copies the error's OWN property names. Code under test that throws an object
 * which is `instanceof Error` but has no own property (`Object.create(Error.prototype)`: mocha's
 * `isError` accepts it, so it is not wrapped) makes the test fail for mocha (it is in `failures`,
 * `stats.failures` counts it, exit status 1) while its `tests` entry carries `err: {}`.
 *
 * The coder leaves the bug in place and makes `slugify` throw such an object whenever its input has
 * a run of whitespace: the pinned seam test `slug > collapses repeated spaces` really fails (it
 * throws), yet every seam run reports it passing by name. The canary still fails with its nonce and
 * the runner exits non-zero (it had failures), which is what `judgeCanary` asks for when a canary
 * is placed (src/verify/seam.ts judges the other tests by the report only). Regression is unchanged
 * (that test is excluded as a seam test). The lane ends `completed` and commits a slugify that
 * throws on the very input of the task. The same hole hides a regression on mocha (second case:
 * the seam fixed, `clamp` made to throw such an object, `math clamp > works` read as passing; on a
 * base whose suite is red, as here where the seam is in the suite, nothing else notices).
 * Fixed (stop 43, ADR 0081): a test mocha lists in `failures` fails whatever its `err` says
 * (`failedIdentities` in src/verify/test-reports/mocha.ts).
 *
 * Asserts the correct behaviour (not completed, seam red); it failed before the fix.
 * Run: npx vitest run test/adversarial/review/mocha-empty-error-reads-as-pass-attack44.test.ts
 */
import { describe, expect, it } from "vitest";
import { ensureRunnerInstalled } from "../../reports/runner-fixture.js";
import { attemptEnvelope, expectAttackRefused, slugLane } from "../../support/runner-lane.js";

const THROWS_AN_EMPTY_ERROR = `
import { readFileSync, writeFileSync } from "node:fs";
const f = "src/slug.js";
const before = readFileSync(f, "utf8");
const after = before.replace("function slugify(text) {", "function slugify(text) {\\n  if (/\\\\s\\\\s/.test(text)) throw Object.create(Error.prototype);");
if (after === before) throw new Error("slugify not found");
writeFileSync(f, after);
console.log("Runs of whitespace are handled now.");`;

const CLAMP_THROWS_AN_EMPTY_ERROR = `
import { readFileSync, writeFileSync } from "node:fs";
const edit = (f, from, to) => {
  const before = readFileSync(f, "utf8");
  if (!before.includes(from)) throw new Error(f + ": " + from + " not found");
  writeFileSync(f, before.replace(from, to));
};
edit("src/slug.js", ".replace(/ /g,", ".replace(/\\\\s+/g,");
edit("src/math.js", "return Math.min(Math.max(value, low), high);", "if (value > high) throw Object.create(Error.prototype);\\n  return value;");
console.log("Runs of whitespace become one dash.");`;

describe("mocha's JSON report, a failure with an empty err (attack 44)", () => {
  it("mocha: a seam test that fails with an error without own properties is not green (attack 44)", async () => {
    await ensureRunnerInstalled("mocha");
    const run = await slugLane("mocha", THROWS_AN_EMPTY_ERROR);
    // What a completion would commit is not a fix: slugify throws on the task's own input.
    await expectAttackRefused(run, {
      verifier: "seam",
      file: "src/slug.js",
      broken: "throw Object.create(Error.prototype)",
    });
  }, 300_000);

  it("mocha: a broken non-seam test that fails with an error without own properties is a regression", async () => {
    await ensureRunnerInstalled("mocha");
    const run = await slugLane("mocha", CLAMP_THROWS_AN_EMPTY_ERROR);
    await expectAttackRefused(run, {
      verifier: "regression",
      file: "src/math.js",
      broken: "throw Object.create(Error.prototype)",
      result: "fail",
    });
    expect((await attemptEnvelope(run, "regression"))?.summary).toMatch(
      /math\.test\.js > math clamp > works/,
    );
  }, 300_000);
});
