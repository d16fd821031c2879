/**
 * Attack 59b (review 59, ADR 0048 amendment stop 51, point 4 "No console verdict for node:test"):
 * FALSE PASS of regression under node:test, by the very forgery 58c used (the module under test
 * rewrites its own test process's `test:fail` events to `test:pass`), when the project's script
 * starts node by its path: `"$npm_node_execpath" --test test/` (npm's own variable for the node it
 * runs under; likewise `/usr/local/bin/node --test`, `tsx --test`).
 *
 * Cause: whether a script is node:test, and so whether it gets the report route with its ledger or
 * (stop 51) no console verdict at all, is decided by the NODE_TEST regex
 * (src/verify/test-reports/node-test.ts), which needs the word `node` after a blank or `;&|(`. Any
 * other spelling of the same runner is "no runner detected": regression judges it from the console
 * (parseTestTally), where no ledger is made or checked, and the forged `ok` lines read green.
 *
 * Should: a run of node's test runner gets the ledger or no verdict whatever the script calls node
 * (e.g. detect node:test from what ran, such as NODE_TEST_CONTEXT children / the `--test` flag of a
 * node process, or refuse a console verdict whose output is node's test reporter's).
 *
 * Fixed (stop 51): NODE_TEST (src/verify/test-reports/node-test.ts) takes node by any path and npm's
 * `$npm_node_execpath`, so these scripts take the report route with its ledger. Mutation: the old
 * pattern back, all three cases red (regression `pass`, the lane completes).
 */
import { describe, expect, it } from "vitest";
import { forgedNodeTestAttempt, V8_EVENT_FORGER } from "../../support/node-test-forged-attempt.js";
import {
  expectAttackRefused,
  fixSlugBreakClamp,
  runnerRepoWith,
  slugLane,
} from "../../support/runner-lane.js";

describe("attack 59b: node:test started by its path is judged from the console, without the ledger", () => {
  it.for(['"$npm_node_execpath" --test test/', `${process.execPath} --test test/`])(
    "a broken clamp whose process forges its own result must not pass (%s)",
    { timeout: 240_000 },
    async (script, { onTestFinished }) => {
      const { base, run } = await forgedNodeTestAttempt(script, onTestFinished);
      console.log(
        "attack59b:",
        script,
        "base",
        base.invocation?.runner ?? "console",
        base.error,
        "->",
        run.overall_result,
        run.summary,
      );
      expect(run.overall_result, run.summary).not.toBe("pass");
    },
  );
  it('the real lane must not complete with clamp broken (`npm test` = "$npm_node_execpath" --test test/)', async () => {
    const repo = await runnerRepoWith("node-test", {
      "package.json": JSON.stringify({
        name: "fixture-node-test",
        private: true,
        type: "module",
        scripts: { test: '"$npm_node_execpath" --test test/' },
      }),
    });
    const coder = `${fixSlugBreakClamp()}
writeFileSync("src/math.js", ${JSON.stringify(V8_EVENT_FORGER)} + readFileSync("src/math.js", "utf8"));
console.log("Runs of whitespace become one dash.");
`;
    const run = await slugLane("node-test", coder, { repo });
    const rec = await run.store.read("iterator_run");
    console.log("attack59b lane verdict:", rec?.terminal?.verdict, rec?.terminal?.reason);
    await expectAttackRefused(run, { verifier: "regression", file: "src/math.js", broken: "return value;" });
  }, 600_000);
});
