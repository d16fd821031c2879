/**
 * Attack 59c (review 59, ADR 0048 amendment stop 51, point 4): FALSE REJECTION of an honest node:test
 * project: a correct fix of the seam never completes, on any attempt.
 *
 * Cause: a test file that ends its process itself once its tests are done (`after(() =>
 * process.exit(0))`, the usual way out of a pool or server handle that keeps node alive) makes
 * node's runner report the FILE as one passing test and never its tests: the child exits before it
 * sends their events. The ledger (report-run.ts → ledgerProblem) then finds "ok" signed registered
 * and passed but reported 0 times and calls base's own honest run "tamper: … forged test output".
 * Until stop 51 that base fell back to the console verdict (per the diff of 6c3d4d2); since stop 51 a node:test script whose
 * base gives no report gets no verdict at all (regression.ts `nodeTestWithoutReport`): base records
 * `refused` and every attempt's regression ends `error`, so the lane can never complete for this
 * project, whatever the fix.
 *
 * Observed (real lane, node:test fixture plus test/db.test.js below, the honest fix of slugify):
 * the lane ends `blocked` on base: "the regression command `npm test --silent` could not run on the
 * base commit: node:test is judged only from devflow's report, … none could be had: tamper:
 * devflow's ledger saw "closes the pool" registered 1 times but the runner reported it 0: forged
 * test output. Fix it or pass --test-cmd <command>." (The ledger's "registered but not reported"
 * rule predates stop 51; before it such a base fell back to the console verdict, regression.ts, not
 * re-run here.)
 *
 * Should: an honest suite whose base run is green completes with a correct fix (e.g. a test process
 * exiting 0 after its own tests ran and were signed, with its end record, is not a forgery: the
 * ledger's signed passes could stand in for what node did not get to report, or base's verdict
 * could stay the console's when base's own run is what the ledger disputes).
 *
 * Not fixed (stop 51), pinned with `it.fails` so it turns red when it is: the console verdict this
 * base used to get is the one the in-process forger of attacks 58c and 59b passes, so giving it
 * back would trade this false rejection for a false completion on such projects; and relaxing the
 * ledger's "registered but not reported" rule needs its own review. The lane ends `blocked` on
 * base, saying why (ADR 0048, amendment of stop 51, "Left").
 */
import { expect, it } from "vitest";
import { attemptEnvelope, runnerRepoWith, slugLane, writingCoder } from "../../support/runner-lane.js";

const DB_TEST = `import assert from "node:assert/strict";
import { after, test } from "node:test";

// A pool that would keep the process alive.
const pool = setInterval(() => {}, 1000);
test("closes the pool", () => assert.ok(pool));
after(() => process.exit(0));
`;

it.fails("an honest node:test project whose test file exits in its after hook completes a correct fix", async () => {
  const repo = await runnerRepoWith("node-test", { "test/db.test.js": DB_TEST });
  const run = await slugLane("node-test", writingCoder({}, true), { repo });
  expect(run.error).toBeNull();
  const record = await run.store.read("iterator_run");
  const regression = await attemptEnvelope(run, "regression");
  console.log(
    "attack59c:",
    record?.terminal?.verdict,
    record?.terminal?.reason,
    "| regression:",
    regression?.overall_result,
    regression?.summary,
  );
  expect(record?.terminal?.verdict, `${record?.terminal?.reason}\nregression: ${regression?.summary}`).toBe(
    "completed",
  );
}, 600_000);

// Until it is fixed, the refusal says what to do instead of calling the project's own run forged.
it("the lane blocks on base saying what a test file exiting in its after hook does, and the way out", async () => {
  const repo = await runnerRepoWith("node-test", { "test/db.test.js": DB_TEST });
  const run = await slugLane("node-test", writingCoder({}, true), { repo });
  const record = await run.store.read("iterator_run");
  expect(record?.terminal?.verdict).toBe("blocked");
  expect(record?.terminal?.reason).toContain("`process.exit` in an `after` hook");
  expect(record?.terminal?.reason).toContain("--test-force-exit");
}, 600_000);
