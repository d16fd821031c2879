/**
 * Hostile review (attack 44b, of ADR 0081's spirit on another runner): tape's per-assertion
 * `{ todo: true }` is tape's expected-failure feature. A failing assertion so marked prints
 * `not ok N … # TODO` and does not fail the run. devflow's TAP reader (`statusOf` in
 * src/verify/test-reports/tap-tests.ts) reads a test whose outcomes are a TODO failure plus any
 * `ok` as `pass` (only all-TODO is `todo`), although the TAP it parsed says an assertion of that
 * test failed. ADR 0081 closed jest `.failing` / vitest `.fails` because "a test so marked reports
 * as passed when it fails"; here the report even says `not ok`, and devflow still reads pass.
 * The marker check (expected-failure-markers.ts) knows nothing of tape.
 *
 * The coder fixes the seam, breaks `clamp` (src/math.js returns its input), marks the clamp
 * assertion `{ todo: true }` and adds `sst.pass()`: regression says "no regressions" and the lane
 * completes with clamp broken on the branch.
 *
 * Asserts the correct behaviour (not completed, regression fails); it failed before the fix (stop 43:
 * a failing TODO assertion keeps its test from green, `statusOf` in tap-tests.ts).
 * Run: npx vitest run test/adversarial/review/tape-todo-assertion-hides-a-broken-test-attack44b.test.ts
 */
import { it } from "vitest";
import { ensureRunnerInstalled } from "../../reports/runner-fixture.js";
import { expectAttackRefused, fixSlugBreakClamp, slugLane } from "../../support/runner-lane.js";

const CODER = `${fixSlugBreakClamp()}edit("test/math.test.js", "sst.equal(clamp(5, 0, 3), 3);", 'sst.equal(clamp(5, 0, 3), 3, "clamps", { todo: true });\\n      sst.pass("checked");');
console.log("Runs of whitespace become one dash.");
`;

it("tape: a { todo: true } assertion on the broken clamp test does not complete", {
  timeout: 300_000,
}, async () => {
  await ensureRunnerInstalled("tape");
  const run = await slugLane("tape", CODER);
  await expectAttackRefused(run, {
    verifier: "regression",
    file: "src/math.js",
    broken: "return value;",
    result: "fail",
  });
});
