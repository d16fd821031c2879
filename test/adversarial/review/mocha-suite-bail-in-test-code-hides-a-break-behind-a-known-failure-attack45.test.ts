/**
 * Hostile review (attack 45, of ADR 0083): FALSE COMPLETION where ADR 0083 says "it fails closed".
 *
 * Attack: a mocha suite that stops itself at its first failure, `this.bail(true)` inside a
 * `describe` (the usual way to write a multi-step flow whose later steps need the earlier ones). Its
 * first test fails on base in devflow's runs (it needs the network). The coder fixes the seam and
 * breaks `clamp`, checked by a later test of that suite. Regression says "no regressions".
 *
 * Cause: ADR 0083's `--no-bail` (src/verify/test-reports/mocha.ts `runEveryTest`) sets the root
 * suite's bail only; a suite's own `this.bail(true)` stays. ADR 0083 lists "a stop a test's own code
 * asks for" as not undone and says "On the attempt, such a stop leaves base's passing tests 'missing
 * now', which fails regression". That holds for a stop the attempt adds, not for one base already
 * has: base's run stops the suite at the known failure, and so does every attempt's run, at the
 * same place. The tests after it are absent from both reports (mocha's JSON does not list them), so
 * regression.ts `reportRegression` / compare-reports.ts `compareReports` never judge them and
 * nothing says that base's report has tests it never ran.
 *
 * Realism: `this.bail(true)` is documented mocha API used for ordered integration flows, and a test
 * that needs the network is the ordinary known failure of a red base under devflow's confinement.
 *
 * Fixed (stop 44): mocha's regression runs also `--require` devflow's
 * src/verify/test-reports/mocha-no-suite-bail.cjs, which makes every suite's `_bail` read false.
 * The case was pinned with `it.fails` until then.
 *
 * Run: VITEST_MAX_WORKERS=1 npx vitest run test/adversarial/review/mocha-suite-bail-in-test-code-hides-a-break-behind-a-known-failure-attack45.test.ts
 */
import { describe, expect, it } from "vitest";
import {
  breakClamp,
  fixSlug,
  fixtureBaseline,
  fixtureProject,
  fixtureRegression,
} from "../../support/fixture-regression.js";

const COMMAND = "mocha 'test/**/*.test.js'";

const flow = (bail: boolean) => `const assert = require("node:assert");
const { clamp } = require("../src/math.js");
describe("mirror client", function () {
${bail ? "  this.bail(true); // the later steps need the connection\n" : ""}  it("connects", () => assert.fail("offline"));
  it("clamps the retry count", () => assert.strictEqual(clamp(5, 0, 3), 3));
});
`;

/** Base taken, then the hostile attempt (the seam's fix, clamp broken) judged. */
async function hostileAttempt(bail: boolean, onTestFinished: (fn: () => Promise<void>) => void) {
  // The fixture's own clamp test goes: only the flow checks clamp.
  const files = { "test/math.test.js": "", "test/mirror.test.js": flow(bail) };
  const repo = await fixtureProject("mocha", files, onTestFinished);
  const b = await fixtureBaseline(repo, COMMAND);
  expect(b.report?.complete, b.error ?? "no complete report").toBe(true);
  await fixSlug(repo);
  await breakClamp(repo);
  return fixtureRegression(repo, COMMAND, b);
}

describe.concurrent("a mocha suite with this.bail(true) and a known failure first (attack 45)", () => {
  it("control: without the suite's bail the break of clamp fails regression", async ({ onTestFinished }) => {
    const e = await hostileAttempt(false, onTestFinished);
    expect(e.overall_result).toBe("fail");
    expect(e.summary).toContain("test/mirror.test.js > mirror client > clamps the retry count");
  });

  it("with the suite's bail the same break of clamp fails regression", async ({ onTestFinished }) => {
    const e = await hostileAttempt(true, onTestFinished);
    // Before the fix: pass, "no regressions ... still failing as on base: test/mirror.test.js > mirror client > connects".
    expect(e.overall_result, e.summary).toBe("fail");
  });
});
