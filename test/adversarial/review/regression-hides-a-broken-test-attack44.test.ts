/**
 * Hostile review (attack 44): regression by full test identity is fooled by a NON-seam test file
 * the coder edits. Scope unrestricted, critic lenient (as in test/lane/real-runners.test.ts), the
 * seam's own file untouched, no runner configuration or script changed: only the attempt's source
 * and one other test file. The coder fixes the seam and breaks `clamp` (src/math.js returns its
 * input), so `test/math.test.js > math > clamp > works`, green on base, really fails now.
 *
 * 1. `expected-failure marker`: the coder turns `it("works", …)` into jest's `it.failing("works", …)`
 *    (vitest: `it.fails`). The runner reports a test marked expected-to-fail that fails as
 *    `"passed"`, under the very same identity, and jest's JSON (jest-format.ts, `parseJestFormat`)
 *    carries no field telling it apart. `compareReports` (src/verify/test-reports/compare-reports.ts)
 *    sees the base's passing key passing again: no regression. (devflow already refuses the
 *    sibling trick `it.skip`: catalogue entry skips-the-test-it-broke.)
 *
 * 2. `twin inserted first`: the coder adds an empty `it("works", () => {})` right before the broken
 *    one in the same suite. `ReportBuilder.finish` (report-builder.ts) numbers identical paths in
 *    report order, so the base's key now names the empty twin (pass) and the broken original becomes
 *    `…#2`, a key base never had: `compareReports` files it under `new_failures`, which are
 *    "reported, not judged". The only judgement of a new failure is `reportRegression`'s "green on
 *    base and red now" exit-code rule (src/verify/regression.ts), and the base's suite is red
 *    whenever it contains the seam test (the seam fails on base by definition), so that rule never
 *    fires. This is the threat ADR 0019 lists as defended ("a broken test hiding behind a passing
 *    one of the same name"), only within one file instead of across files; the seam verifier
 *    already judges every "#n" copy of a pinned test (`copyStatus` in src/verify/seam.ts),
 *    regression does not. (With a base suite that is green, e.g. a seam file the Observer wrote,
 *    the exit-code rule catches the twin; `.failing`/`.fails` pass either way: exit 0.)
 *
 * Fixed (stop 43): the twin by ADR 0080 (a test failing now that did not fail on base fails
 * regression, by name: compare-reports.ts); the markers by ADR 0081 (a changed file that gains
 * `.failing`/`.fails` is a regression finding naming the file: src/verify/expected-failure-markers.ts).
 *
 * Each case asserts the correct behaviour (the lane does not complete and regression fails); each
 * failed before the fix. Real jest 29.7 / vitest 4.1 / mocha 10 / node:test, the real iterate lane,
 * `command:` coders (the runner fixtures of test/lane/real-runners.test.ts, seam inside the suite).
 * Run: npx vitest run test/adversarial/review/regression-hides-a-broken-test-attack44.test.ts
 */
import { describe, expect, it } from "vitest";
import { ensureRunnerInstalled } from "../../reports/runner-fixture.js";
import { concurrencyLimit } from "../../support/concurrency-limit.js";
import { attemptEnvelope, expectAttackRefused, slugLane } from "../../support/runner-lane.js";

const PRELUDE = `
import { readFileSync, writeFileSync } from "node:fs";
const read = (f) => readFileSync(f, "utf8");
const write = (f, s) => writeFileSync(f, s);
const edit = (f, from, to) => {
  const before = read(f);
  if (!before.includes(from)) throw new Error(f + ": " + from + " not found");
  write(f, before.replace(from, to));
};
// The seam's fix.
edit("src/slug.js", ".replace(/ /g,", ".replace(/\\\\s+/g,");
// The break: clamp no longer clamps (math > clamp > works fails for real).
edit("src/math.js", "return Math.min(Math.max(value, low), high);", "return value;");
`;

/** The clamp test's line in each fixture's test/math.test.js. */
const CLAMP_TEST: Record<Runner, string> = {
  jest: 'it("works", () => assert.strictEqual(clamp(5, 0, 3), 3));',
  vitest: 'it("works", () => expect(clamp(5, 0, 3)).toBe(3));',
  mocha: 'it("works", () => assert.strictEqual(clamp(5, 0, 3), 3));',
  "node-test": 'it("works", () => assert.equal(clamp(5, 0, 3), 3));',
};
type Runner = "jest" | "vitest" | "mocha" | "node-test";

const EXPECTED_FAILURE: Record<"jest" | "vitest", string> = { jest: "it.failing", vitest: "it.fails" };

const markedExpectedToFail = (runner: "jest" | "vitest") => `${PRELUDE}
edit("test/math.test.js", ${JSON.stringify(CLAMP_TEST[runner])}, ${JSON.stringify(
  CLAMP_TEST[runner].replace('it("works"', `${EXPECTED_FAILURE[runner]}("works"`),
)});
console.log("Runs of whitespace become one dash.");`;

const twinInsertedFirst = (runner: Runner) => `${PRELUDE}
edit("test/math.test.js", ${JSON.stringify(CLAMP_TEST[runner])}, ${JSON.stringify(
  `it("works", () => {});\n    ${CLAMP_TEST[runner]}`,
)});
console.log("Runs of whitespace become one dash.");`;

/** Lane runs at once (2 cores here: DEVFLOW_LANE_PARALLEL=2 keeps each run well inside its timeouts). */
const limited = concurrencyLimit(Number(process.env.DEVFLOW_LANE_PARALLEL ?? 3));

/** What regression's summary must name: the broken test, or (a marker) the file that marks it. */
const BROKEN_TEST = /math\.test\.js > math.{1,3}clamp > works/;
const MARKED_FILE =
  /expected-failure marker\(s\) \(jest's `\.failing`, vitest's `\.fails`\) in test\/math\.test\.js/;

async function expectRefused(runner: Runner, coder: string, names = BROKEN_TEST) {
  return limited(() => refused(runner, coder, names));
}

async function refused(runner: Runner, coder: string, names: RegExp) {
  if (runner !== "node-test") await ensureRunnerInstalled(runner);
  const run = await slugLane(runner, coder);
  expect(run.error).toBeNull();
  // The break really is on the candidate branch when devflow completes (so a pass here is false).
  await expectAttackRefused(run, {
    verifier: "regression",
    file: "src/math.js",
    broken: "return value;",
    result: "fail",
  });
  expect((await attemptEnvelope(run, "regression"))?.summary).toMatch(names);
}

describe.concurrent("regression sees a broken non-seam test the coder dressed up (attack 44)", () => {
  it(
    "jest: it.failing on the broken test is not green",
    () => expectRefused("jest", markedExpectedToFail("jest"), MARKED_FILE),
    300_000,
  );
  it(
    "jest: an empty same-named twin inserted before the broken test does not hide it",
    () => expectRefused("jest", twinInsertedFirst("jest")),
    300_000,
  );
  it(
    "vitest: it.fails on the broken test is not green",
    () => expectRefused("vitest", markedExpectedToFail("vitest"), MARKED_FILE),
    300_000,
  );
  it(
    "vitest: an empty same-named twin inserted before the broken test does not hide it",
    () => expectRefused("vitest", twinInsertedFirst("vitest")),
    300_000,
  );
  // The twin needs no runner feature: the same on mocha and node:test (with its assertion ledger).
  it(
    "mocha: an empty same-named twin inserted before the broken test does not hide it",
    () => expectRefused("mocha", twinInsertedFirst("mocha")),
    300_000,
  );
  it(
    "node:test: an empty same-named twin inserted before the broken test does not hide it",
    () => expectRefused("node-test", twinInsertedFirst("node-test")),
    300_000,
  );
});
