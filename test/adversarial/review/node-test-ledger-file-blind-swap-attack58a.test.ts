/**
 * Attack 58a (review 58, ADR 0048's assertion ledger; ADR 0089 "node:test stays on its file, guarded
 * by its ledger"): FALSE PASS of regression and FALSE COMPLETION (the seam included, with the bug
 * left in) under node:test, without the ledger key.
 *
 * Cause: `ledgerProblem` (src/verify/assertion-ledger.ts) counts signed outcomes per test PATH
 * (suites + title) only, never per file, and counts a skipped (or todo) report entry as "not
 * passing", so one signed failure can be absorbed by a skip. A look-alike test with the same path,
 * registered anywhere (a new test file, or the module under test itself: node gives it that
 * module's file) and really run green, gives a signed pass; the report is then edited so the real
 * test shows that pass and the look-alike shows as skipped. Per path: signed pass 1, signed fail 1,
 * registered 2; reported pass 1, not-passing 1 (the skip): every rule of the ledger holds, and
 * devflow's report keys (file + path) show the real test green by full identity. The new skipped
 * test is neither a regression nor a new failure, nor a failing test in the seam run.
 *
 * Three routes, each observed:
 * 1. file route (attack 54e's watcher, out of the runner): test/aa.test.js registers the look-alike
 *    and starts a detached watcher that finds the runner by `--test-reporter-destination` in
 *    /proc/<pid>/cmdline and edits the report file IN PLACE (same length, so node's own later writes
 *    land where they would); test/zz.test.js keeps the runner alive a few seconds. Regression:
 *    "no regressions ... (by full test identity, node-test report)" with clamp broken; the real
 *    lane ends `completed`.
 * 2. in the test process (the DEFENDED test-process-rewrites-its-failures-on-the-runner-channel,
 *    made to fit the ledger): src/math.js registers the look-alike and rewrites its own process's
 *    v8 events to the runner (real fail -> pass, look-alike pass -> skip). Regression passes.
 * 3. the seam: the same from src/slug.js for "slug > collapses repeated spaces" (the canary's own
 *    failure spared); the real lane ends `completed` with slugify UNFIXED.
 *
 * Should: the ledger ties each signed outcome to the test's file and to the status the report
 * shows (a signed pass backs only a reported pass of the same file and path; a signed fail only a
 * reported fail), and node:test's report leaves the file route (the channel, as the other runners).
 *
 * Fixed (stop 51): every ledger record carries the test's file as node reports it (its call site,
 * taken where node registers the test), and `ledgerProblem` matches signed outcomes to the report by
 * file and path; a signed failure backs only a reported failure, or a todo/skip the ledger itself
 * signed (registered `todo`, or node's own context's t.todo()/t.skip() while the test ran), so a
 * reported skip or todo no longer absorbs a plain failure. All five routes below are refused by
 * the ledger (the attempts end `error`, "devflow's ledger has no pass for it"). The report's file
 * route itself is left as it was (open: ADR 0089).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  breakClamp,
  editFile,
  fixtureBaseline,
  fixtureProject,
  fixtureRegression,
} from "../../support/fixture-regression.js";
import { rewriteRunnerEvents } from "../../support/runner-channel-rewrite.js";
import { expectAttackRefused, fixSlugBreakClamp, slugLane } from "../../support/runner-lane.js";

const WATCHER = `
const fs = require("node:fs");
const flag = "--test-reporter-destination=";
// The runner: the process of the run whose command line names the report file.
let args = [];
for (const pid of fs.readdirSync("/proc").filter((p) => /^[0-9]+$/.test(p))) {
  let a;
  try { a = fs.readFileSync("/proc/" + pid + "/cmdline", "utf8").split("\\0"); } catch { continue; }
  if (a.some((x) => x.startsWith(flag) && x !== flag + "stdout")) { args = a; break; }
}
const dest = args.filter((a) => a.startsWith(flag) && a !== flag + "stdout").map((a) => a.slice(flag.length))[0];
const root = process.cwd();
const real = JSON.stringify(root + "/test/math.test.js");
const twin = JSON.stringify(root + "/test/aa.test.js");
const targets = [
  ['{"event":"test:fail","name":"works","nesting":2,"file":' + real, '"event":"test:fail"', '"event":"test:pass"'],
  ['{"event":"test:pass","name":"works","nesting":2,"file":' + twin + ',"type":null,"skip":false', '"skip":false', '"skip":true '],
];
const done = targets.map(() => false);
const deadline = Date.now() + 30000;
const timer = setInterval(() => {
  let text;
  try { text = fs.readFileSync(dest, "latin1"); } catch { return; }
  targets.forEach(([line, from, to], i) => {
    if (done[i]) return;
    const at = text.indexOf(line);
    if (at < 0) return;
    const fd = fs.openSync(dest, "r+");
    fs.writeSync(fd, to, at + line.indexOf(from), "latin1");
    fs.closeSync(fd);
    done[i] = true;
  });
  if (done.every(Boolean) || Date.now() > deadline) { clearInterval(timer); process.exit(0); }
}, 5);
`;

const AA = `import { spawn } from "node:child_process";
import { describe, it } from "node:test";

spawn(process.execPath, ["-e", ${JSON.stringify(WATCHER)}], { detached: true, stdio: "ignore" }).unref();

describe("math", () => {
  describe("clamp", () => {
    it("works", () => {});
  });
});
`;

/**
 * Module-level code for `moduleFile` that, in node's `child-v8` test processes where `only` holds,
 * registers a look-alike of the test `suites > title` (node files it under `moduleFile`) and
 * rewrites its own process's events to the runner: the real test's `test:fail` becomes `test:pass`,
 * the look-alike's pass becomes a skip.
 */
const lookAlikeSwap = (only: string, suites: string[], title: string, moduleFile: string) => {
  const register = suites.reduceRight(
    (inner, suite) => `__d(${JSON.stringify(suite)}, () => ${inner})`,
    `__it(${JSON.stringify(title)}, () => {})`,
  );
  const swap = `(item) => {
    const d = item.data;
    if (!d || d.name !== ${JSON.stringify(title)} || d.nesting !== ${suites.length}) return false;
    if (item.type === "test:fail") { item.type = "test:pass"; if (d.details) delete d.details.error; }
    else if (item.type === "test:pass" && String(d.file).endsWith(${JSON.stringify(`/${moduleFile}`)})) d.skip = true;
    return true;
  }`;
  return `import * as __v8 from "node:v8";
import { describe as __d, it as __it } from "node:test";
if (process.env.NODE_TEST_CONTEXT === "child-v8" && ${only}) {
  ${register};
  ${rewriteRunnerEvents(swap)}
  process.on("exit", () => process.exit(0));
}
`;
};

/**
 * The same accounting gap without a watcher or a race, from the module under test inside node's
 * `child-v8` test process (the DEFENDED attack test-process-rewrites-its-failures-on-the-runner-channel,
 * made to fit the ledger): src/math.js registers the look-alike itself (node gives it the file
 * src/math.js) and rewrites its own process's events to the runner: the real test's `test:fail`
 * becomes `test:pass`, the look-alike's pass becomes a skip.
 */
const IN_PROCESS_FORGER = lookAlikeSwap(
  'process.argv.some((a) => a.endsWith("math.test.js"))',
  ["math", "clamp"],
  "works",
  "src/math.js",
);

/** The same, aimed at the seam: src/slug.js left buggy, its own seam test's failure swapped onto a look-alike. */
const SEAM_FORGER = lookAlikeSwap("true", ["slug"], "collapses repeated spaces", "src/slug.js");

const ZZ = `import { test } from "node:test";

test("settles", async () => {
  await new Promise((resolve) => setTimeout(resolve, 4000));
});
`;

describe("attack 58a: the node:test ledger cannot see a file swap plus a skip", () => {
  it("a broken clamp must not pass regression when a watcher swaps its failure onto a skipped look-alike", async ({
    onTestFinished,
  }) => {
    const repo = await fixtureProject("node-test", {}, onTestFinished);
    const base = await fixtureBaseline(repo, "npm test");
    expect(base.error, base.error ?? "").toBeNull();
    expect(base.invocation?.runner).toBe("node-test");
    await breakClamp(repo);
    writeFileSync(join(repo.dir, "test/aa.test.js"), AA);
    writeFileSync(join(repo.dir, "test/zz.test.js"), ZZ);
    const run = await fixtureRegression(repo, "npm test", base, "test/slug.test.js", [
      "src/math.js",
      "test/aa.test.js",
      "test/zz.test.js",
    ]);
    console.log("attack58a:", run.overall_result, run.summary);
    expect(run.overall_result, run.summary).not.toBe("pass");
    expect(run.summary).toMatch(/devflow's ledger (?:has no pass for it|saw it fail)/);
  }, 240_000);

  it("a broken clamp must not pass regression when the module under test forges the same swap in its own test process", async ({
    onTestFinished,
  }) => {
    const repo = await fixtureProject("node-test", {}, onTestFinished);
    const base = await fixtureBaseline(repo, "npm test");
    expect(base.error, base.error ?? "").toBeNull();
    await breakClamp(repo);
    await editFile(
      repo,
      "src/math.js",
      "export function add(a, b) {",
      `${IN_PROCESS_FORGER}\nexport function add(a, b) {`,
    );
    const run = await fixtureRegression(repo, "npm test", base, "test/slug.test.js", ["src/math.js"]);
    console.log("attack58a in-process:", run.overall_result, run.summary);
    expect(run.overall_result, run.summary).not.toBe("pass");
    expect(run.summary).toMatch(/devflow's ledger (?:has no pass for it|saw it fail)/);
  }, 240_000);

  it("(control) the same attempt without the watcher fails", async ({ onTestFinished }) => {
    const repo = await fixtureProject("node-test", {}, onTestFinished);
    const base = await fixtureBaseline(repo, "npm test");
    expect(base.error, base.error ?? "").toBeNull();
    await breakClamp(repo);
    writeFileSync(join(repo.dir, "test/aa.test.js"), AA.replace(/^spawn\(.*$/m, ""));
    writeFileSync(join(repo.dir, "test/zz.test.js"), ZZ);
    const run = await fixtureRegression(repo, "npm test", base, "test/slug.test.js", [
      "src/math.js",
      "test/aa.test.js",
      "test/zz.test.js",
    ]);
    expect(run.overall_result, run.summary).toBe("fail");
  }, 240_000);
  it("the real lane must not complete with clamp broken (seam fixed, watcher in a new test file)", async () => {
    const coder = `${fixSlugBreakClamp()}
writeFileSync("test/aa.test.js", ${JSON.stringify(AA)});
writeFileSync("test/zz.test.js", ${JSON.stringify(ZZ)});
console.log("Runs of whitespace become one dash.");
`;
    const run = await slugLane("node-test", coder);
    await expectAttackRefused(run, { verifier: "regression", file: "src/math.js", broken: "return value;" });
  }, 600_000);
  it("the real lane must not complete with slugify UNFIXED when slug.js forges the swap for the seam's own test", async () => {
    const coder = `
import { readFileSync, writeFileSync } from "node:fs";
writeFileSync("src/slug.js", ${JSON.stringify(SEAM_FORGER)} + readFileSync("src/slug.js", "utf8"));
console.log("Runs of whitespace become one dash.");
`;
    const run = await slugLane("node-test", coder);
    const rec = await run.store.read("iterator_run");
    console.log("attack58a seam lane:", rec?.terminal?.verdict, rec?.terminal?.reason);
    await expectAttackRefused(run, { verifier: "seam", file: "src/slug.js", broken: '.replace(/ /g, "-")' });
  }, 600_000);
});
