/**
 * Attack 58c (review 58, ADR 0048 / ADR 0084): FALSE PASS of regression under node:test when the
 * project's test script names its own reporter (`node --test --test-reporter=tap test/`), by the
 * very forgery the assertion ledger closed (attacks.ts, test-process-rewrites-its-failures-on-the-runner-channel).
 *
 * Cause: the ledger is made and checked only in a report run (report-run.ts). A script that names
 * its own reporter cannot be given devflow's (the rewrite refuses it), so base and every attempt
 * are judged from the console (console-run.ts → runVerifierCommand): no ledger key, no ledger
 * check. Program code loaded by a test file (src/math.js, in node's `child-v8` test process)
 * rewrites its own process's `test:fail` events (sparing the seam's and the canary's processes) to `test:pass` on the stream node's runner reads;
 * the runner prints `ok` for the broken clamp test, the console parser reads it green.
 *
 * Observed: regression "no regressions: all 8 test(s) green on base are still green" with clamp
 * broken; the real lane (seam `node --test test/slug.test.js`, a report run, fixed honestly;
 * `npm test` = `node --test --test-reporter=tap test/`) ends `completed`.
 * Control: the same attempt under the fixture's own `node --test test/` (a report run, ledger on)
 * is refused ("devflow's ledger has no pass for it"). (The forger runs in node's per-file test
 * process, not in the runner's: the in-process forgery ADR 0048's ledger exists to refuse, and does
 * on the report route.) Any node:test script the rewrite refuses (its own `--test-reporter`, two
 * `node --test` calls) takes this route.
 * Should: a node:test run judged from the console gets the ledger too (the key and preloads are
 * the same; check every signed failure shows as a failure and every reported pass has a signed one),
 * or such a console verdict for node:test is refused.
 *
 * Fixed (stop 51): the node:test rewrite takes the script's own `--test-reporter`/
 * `--test-reporter-destination` out of the runner's arguments (as jest's own output file) and adds
 * devflow's, so such a script takes the report route and its ledger refuses the forgery; a node:test
 * script that still gets no report (two `node --test` calls, a reporter before `--test`) gets no
 * console verdict: base and every attempt end `error`, naming why (regression.ts
 * `nodeTestWithoutReport`).
 */
import { describe, expect, it } from "vitest";
import { forgedNodeTestAttempt, V8_EVENT_FORGER } from "../../support/node-test-forged-attempt.js";
import {
  expectAttackRefused,
  fixSlugBreakClamp,
  runnerRepoWith,
  slugLane,
} from "../../support/runner-lane.js";

describe("attack 58c: node:test judged from the console has no assertion ledger", () => {
  it("a broken clamp whose process forges its own result must not pass (script names its reporter)", async ({
    onTestFinished,
  }) => {
    const { base, run } = await forgedNodeTestAttempt(
      "node --test --test-reporter=tap test/",
      onTestFinished,
    );
    console.log(
      "attack58c: base",
      base.invocation?.runner ?? "console",
      base.consoleCommand,
      "->",
      run.overall_result,
      run.summary,
    );
    // The report route now: base by report, and the attempt refused by the ledger, as the control's.
    expect(base.invocation?.runner).toBe("node-test");
    expect(run.overall_result, run.summary).not.toBe("pass");
    expect(run.summary).toMatch(/devflow's ledger has no pass for it/);
  }, 240_000);

  it("a node:test script that still gets no report (two `node --test` calls) gets no console verdict", async ({
    onTestFinished,
  }) => {
    const { base, run } = await forgedNodeTestAttempt(
      "node --test test/math.test.js && node --test test/slug.test.js",
      onTestFinished,
      { baseRuns: false },
    );
    console.log("attack58c two calls:", base.error, "->", run.overall_result, run.summary);
    expect(base.error).toMatch(
      /^node:test is judged only from devflow's report.*invokes node --test 2 times/,
    );
    expect(run.overall_result, run.summary).toBe("error");
    expect(run.summary).toMatch(/^node:test is judged only from devflow's report/);
  }, 240_000);

  it("(control) the same forgery under devflow's own reporter is refused by the ledger", async ({
    onTestFinished,
  }) => {
    const { run } = await forgedNodeTestAttempt("node --test test/", onTestFinished);
    console.log("attack58c control:", run.overall_result, run.summary);
    expect(run.overall_result, run.summary).not.toBe("pass");
  }, 240_000);
  it("the real lane must not complete with clamp broken (seam fixed, `npm test` names the tap reporter)", async () => {
    const repo = await runnerRepoWith("node-test", {
      "package.json": JSON.stringify({
        name: "fixture-node-test",
        private: true,
        type: "module",
        scripts: { test: "node --test --test-reporter=tap test/" },
      }),
    });
    const coder = `${fixSlugBreakClamp()}
writeFileSync("src/math.js", ${JSON.stringify(V8_EVENT_FORGER)} + readFileSync("src/math.js", "utf8"));
console.log("Runs of whitespace become one dash.");
`;
    const run = await slugLane("node-test", coder, { repo });
    const rec = await run.store.read("iterator_run");
    console.log("attack58c lane verdict:", rec?.terminal?.verdict, rec?.terminal?.reason);
    await expectAttackRefused(run, { verifier: "regression", file: "src/math.js", broken: "return value;" });
  }, 600_000);
});
