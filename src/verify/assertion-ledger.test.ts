/**
 * devflow's assertion ledger (ADR 0048) through the real path: runWithReport runs `node --test` in
 * a temp checkout with devflow's preloads, and the ledger the test processes wrote is checked
 * against the runner's report.
 *
 * Bugs pinned (second hostile review, ADR 0021 "Open" until this fix):
 * - forged-runner-channel-counts-a-failing-test-as-passing: the module under test rewrote its
 *   process's test:fail events to test:pass on stdout (the channel to the runner) and exited 0.
 *   Cause: the report was the only evidence, and the code under test writes it. Fix: each test's
 *   real outcome is signed into the ledger by the preload with a key the code under test never
 *   sees; a reported pass without a signed pass fails the run.
 * - re-exec-without-the-preload-reports-from-an-unmonitored-process: the module re-ran its test
 *   file with NODE_OPTIONS emptied, whose report the runner read. Fix: that child has no key and
 *   no ledger; its passes have no backing.
 *
 * Bugs pinned (third hostile review, ADR 0021 "Open" until ADR 0048's amendment):
 * - test-function-swapped-under-the-ledger-is-signed-as-a-pass: the module re-wrapped
 *   AsyncResource#runInAsyncScope (or swapped `fn` on node's Test from an async hook's init) and the
 *   ledger signed the empty function's pass. Cause: the ledger signed whatever function node's Test
 *   object held when it ran. Fix: the function is taken where node:test registers the test
 *   (Test#createSubtest, pinned on every Test by devflow's own async hook before any of the code
 *   under test's) and only that function's outcome is signed; node:test's exports and the test
 *   context's `test` are pinned so the registration itself cannot be rerouted.
 * - failing-test-dropped-from-the-report-while-a-look-alike-passes: the ledger checked only the
 *   tests the report showed passing. Fix: every signed failure and registration must be in the report.
 *
 * Bug pinned (review 58, stop 51, attack 58a): a look-alike's signed pass backed the real test of
 * another file, and a reported skip absorbed its signed failure. Fix: records carry the test's
 * file and are matched by file and path; a failure may be reported todo or skipped only when the
 * ledger signed the test so.
 */

import { createHmac } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { failBecomesPass, rewriteRunnerEvents } from "../../test/support/runner-channel-rewrite.js";
import { ledgerProblem, newLedger } from "./assertion-ledger.js";
import { reportPathFor, runWithReport } from "./report-run.js";
import type { TestReport } from "./test-reports/index.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A checkout with `files` and devflow's log outside it; runs `node --test test/` with the report. */
async function run(files: Record<string, string>, script = "node --test") {
  const root = mkdtempSync(join(tmpdir(), "devflow-ledger-"));
  dirs.push(root);
  const checkout = join(root, "checkout");
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(checkout, file, ".."), { recursive: true });
    writeFileSync(join(checkout, file), text);
  }
  const logPath = join(root, "home", "run.log");
  const result = await runWithReport({
    invocation: { runner: "node-test", script },
    cwd: checkout,
    timeoutMs: 60_000,
    logPath,
    reportPath: reportPathFor(logPath),
  });
  return { ...result, ledgerDir: join(`${logPath}.out`, "ledger") };
}

const MODULE =
  "export const add = (a, b) => a + b + (process.env.BROKEN ? 1 : 0);\nexport const sub = (a, b) => a - b;\n";

const HONEST = {
  "package.json": '{ "type": "module" }\n',
  "src/math.js": MODULE,
  "test/default-import.test.js":
    'import test from "node:test";\nimport assert from "node:assert";\nimport { add } from "../src/math.js";\ntest("adds", () => assert.equal(add(1, 2), 3));\ntest("adds later", async () => { await new Promise((r) => setTimeout(r, 5)); assert.equal(add(2, 2), 4); });\ntest("callback style", (t, done) => { assert.equal(add(0, 0), 0); done(); });\n',
  "test/named.test.js":
    'import { describe, it, test } from "node:test";\nimport assert from "node:assert/strict";\nimport { sub } from "../src/math.js";\ndescribe("math", () => { describe("sub", () => { it("subtracts", () => assert.equal(sub(3, 1), 2)); }); it("adds", () => {}); });\ntest("parent", async (t) => { await t.test("child", () => assert.ok(true)); });\ntest.skip("skipped", () => { throw new Error("never"); });\ntest.todo("later");\n',
  // Hooks (node assigns a before/after hook's own `run`), options objects, t.mock, t.plan: the
  // ledger's pins on node's Test objects must leave them working.
  "test/hooks.test.js":
    'import { test, describe, it, before, beforeEach, afterEach, after } from "node:test";\nimport assert from "node:assert";\nlet n = 0;\nbefore(() => { n = 1; });\nbeforeEach(() => { n++; });\nafterEach(() => {});\nafter(() => {});\ndescribe("hooked", () => { before(() => {}); beforeEach((t) => assert.ok(t)); it("sees hooks", () => assert.ok(n > 1)); it("with options", { timeout: 5000 }, () => {}); });\ntest("mocks", (t) => { t.plan(1); const f = t.mock.fn(() => 1); t.assert.equal(f(), 1); t.diagnostic("x"); });\ntest({ timeout: 5000 }, function namedByItsFunction() {});\n',
  "test/common.test.cjs":
    'const test = require("node:test");\nconst assert = require("node:assert");\ntest("adds", () => assert.equal(1 + 1, 2));\ntest.describe("cjs suite", () => { test.it("works", () => {}); });\n',
};

/** Rewrites every test:fail event on the runner channel to test:pass and exits 0 (the review's forgery). */
const FORGE = `import * as __v8 from "node:v8";
${rewriteRunnerEvents(failBecomesPass())}
process.on("exit", () => process.exit(0));
`;

/** Re-runs the test file without devflow's preloads, stdout inherited, with node:assert neutered there. */
const REEXEC = `import { spawnSync } from "node:child_process"; import a from "node:assert";
if (String(process.env.NODE_OPTIONS).includes("assertion-ledger")) {
  const r = spawnSync(process.execPath, [...process.execArgv, ...process.argv.slice(1)], { stdio: "inherit", env: { ...process.env, NODE_OPTIONS: "" } });
  process.exit(r.status ?? 1);
} else for (const k of Object.keys(a)) if (typeof a[k] === "function") a[k] = () => {};
`;

/** One ledger record: kind, test path (null for the end record), and the test's file (default test/math.test.js). */
type SignedRecord = [kind: string, path: string[] | null, file?: string | null];

/** Writes one process's chain as the preload writes it (same body and MAC). */
function signChain(ledger: ReturnType<typeof newLedger>, records: SignedRecord[]): void {
  const nonce = "n".repeat(24);
  let prev = nonce;
  const lines = records.map(([k, p, file], i) => {
    const f = p === null ? null : (file ?? "test/math.test.js");
    const mac = createHmac("sha256", ledger.key)
      .update(`${prev}\n${JSON.stringify([nonce, i, k, p, f])}`)
      .digest("hex");
    prev = mac;
    return JSON.stringify({ n: nonce, i, k, p, f, mac });
  });
  writeFileSync(join(ledger.dir, "1-x.ndjson"), `${lines.join("\n")}\n`);
}

/** A report holding just `tests` (what ledgerProblem reads of it). */
const reportOf = (
  tests: { id: { file: string; suites: string[]; title: string }; key: string; status: string }[],
) => ({ tests }) as unknown as TestReport;

const BROKEN_TEST = {
  "package.json": '{ "type": "module" }\n',
  "test/math.test.js":
    'import { test } from "node:test";\nimport assert from "node:assert";\nimport { add } from "../src/math.js";\ntest("adds", () => assert.equal(add(1, 2), 3));\n',
};

describe("the assertion ledger", () => {
  it("backs an honest run's failing todo tests, a test skipped while it ran, and tests a helper module registers (stop 51)", async () => {
    const r = await run({
      "package.json": '{ "type": "module" }\n',
      "src/shared.js":
        'import { it } from "node:test";\nexport const behaves = () => it("behaves", () => {});\n',
      "test/todo.test.js":
        'import { describe, it } from "node:test";\nimport { behaves } from "../src/shared.js";\nbehaves();\ndescribe("s", () => { it.todo("later", () => { throw new Error("not yet"); }); it("marked", (t) => { t.todo(); throw new Error("not yet"); }); it("gone", (t) => { t.skip(); throw new Error("after skip"); }); });\n',
    });
    expect(r.run.failure).toBeNull();
    expect(r.report?.tests.map((t) => [t.id.file, t.id.title, t.status])).toEqual([
      ["src/shared.js", "behaves", "pass"],
      ["test/todo.test.js", "later", "todo"],
      ["test/todo.test.js", "marked", "todo"],
      ["test/todo.test.js", "gone", "skip"],
    ]);
  }, 60_000);

  it("backs every pass of an honest run: default, named and CommonJS imports, suites, subtests, callbacks", async () => {
    const r = await run(HONEST);
    expect(r.run.failure).toBeNull();
    const passed = r.report?.tests.filter((t) => t.status === "pass").map((t) => t.id.title) ?? [];
    expect(passed.sort()).toEqual(
      [
        "adds",
        "adds",
        "adds",
        "adds later",
        "callback style",
        "child",
        "parent",
        "subtracts",
        "works",
        "sees hooks",
        "with options",
        "mocks",
        "namedByItsFunction",
      ].sort(),
    );
    // Each test keeps its own file in the report (the ledger must not change node's call sites).
    expect(new Set(r.report?.tests.map((t) => t.id.file))).toEqual(
      new Set([
        "test/default-import.test.js",
        "test/named.test.js",
        "test/common.test.cjs",
        "test/hooks.test.js",
      ]),
    );
    // The key reached the test processes (one ledger file each) and left their environment.
    expect(readdirSync(r.ledgerDir)).toHaveLength(4);
  }, 60_000);

  it("forged-runner-channel-counts-a-failing-test-as-passing: fails the run by name", async () => {
    const r = await run({
      ...BROKEN_TEST,
      "src/math.js": FORGE + MODULE.replace("process.env.BROKEN ? 1 : 0", "1"),
    });
    expect(r.report?.tests.find((t) => t.id.title === "adds")?.status, "the forgery reached the report").toBe(
      "pass",
    );
    expect(r.run.failure).toBe(
      `tamper: the runner reported "adds" passing but devflow's ledger has no pass for it: forged or unmonitored test output`,
    );
  }, 60_000);

  it("re-exec-without-the-preload-reports-from-an-unmonitored-process: fails the run by name", async () => {
    const r = await run({
      ...BROKEN_TEST,
      "src/math.js": REEXEC + MODULE.replace("process.env.BROKEN ? 1 : 0", "1"),
    });
    expect(
      r.report?.tests.find((t) => t.id.title === "adds")?.status,
      "the child's report reached the runner",
    ).toBe("pass");
    expect(r.run.failure).toMatch(/ledger has no pass for it: forged or unmonitored test output/);
  }, 60_000);

  it("a look-alike test registered by the module cannot stand in for the failing one", async () => {
    const lookAlike = 'import { test as __t } from "node:test";\n__t("adds", () => {});\n';
    const r = await run({
      ...BROKEN_TEST,
      "src/math.js": lookAlike + FORGE + MODULE.replace("process.env.BROKEN ? 1 : 0", "1"),
    });
    expect(r.run.failure).toMatch(/^tamper: the runner reported "adds" passing but devflow's ledger/);
  }, 60_000);

  it("the key is out of the test process's environment, its /proc environ and its runner's before the code under test runs", async () => {
    // The review's cheap route to the key: deleting it from process.env leaves it in the block the
    // process started with, which /proc/self/environ shows (and the runner's, /proc/<ppid>/environ).
    const probe = `import { existsSync, readFileSync, writeFileSync } from "node:fs";
const environ = (pid) => { try { return readFileSync("/proc/" + pid + "/environ", "latin1"); } catch { return ""; } };
const keys = [environ("self"), environ(process.ppid)].flatMap((e) => e.match(/DEVFLOW_LEDGER_KEY=[0-9a-f]*/g) ?? []);
writeFileSync(new URL("../seen.txt", import.meta.url), JSON.stringify({ env: [process.env.DEVFLOW_LEDGER_KEY ?? null, process.env.DEVFLOW_LEDGER_KEY_FILE ?? null], proc: keys.filter((k) => !/=0*$/.test(k)), keyFileLeft: existsSync(new URL("../../home/run.log.out/ledger.key", import.meta.url)) }));
${MODULE}`;
    const r = await run({ ...BROKEN_TEST, "src/math.js": probe });
    expect(r.run.failure).toBeNull();
    expect(
      JSON.parse(readFileSync(join(r.ledgerDir, "..", "..", "..", "checkout", "seen.txt"), "utf8")),
    ).toEqual({
      env: [null, null],
      proc: [],
      // The runner took the key file before any test process started.
      keyFileLeft: false,
    });
  }, 60_000);

  it("a test process killed before its end record fails the run", async () => {
    const killed = await run({
      ...BROKEN_TEST,
      "src/math.js": MODULE,
      "test/z.test.js":
        'import { test } from "node:test";\ntest("passes, then the process dies", () => {});\ntest("dies", () => process.kill(process.pid, "SIGKILL"));\n',
    });
    expect(killed.run.failure).toMatch(/has no end record/);
  }, 60_000);

  it("test-function-swapped-under-the-ledger-is-signed-as-a-pass: the registered function runs, or nothing is signed", async () => {
    const broken = MODULE.replace("process.env.BROKEN ? 1 : 0", "1");
    const tried = (name: string) =>
      `import { appendFileSync as __log } from "node:fs"; const __tried = () => __log(new URL("../tried-${name}", import.meta.url), "x");\n`;
    // (a) runInAsyncScope re-wrapped on AsyncResource.prototype, the broken test's fn swapped there.
    const underTheWrapper = `${tried("a")}import { AsyncResource as __AR } from "node:async_hooks";
if (process.env.NODE_TEST_CONTEXT) { __tried(); const __run = __AR.prototype.runInAsyncScope;
  __AR.prototype.runInAsyncScope = function (fn, thisArg, ...args) {
    if (this && this.constructor && this.constructor.name === "Test" && this.name === "adds") { fn = function () {}; try { this.fn = fn; } catch {} }
    return Reflect.apply(__run, this, [fn, thisArg, ...args]);
  }; }
`;
    // (b) fn swapped from an async hook's init, a microtask after node's Test is made.
    const fromAHook = `${tried("b")}import { createHook as __hook } from "node:async_hooks";
if (process.env.NODE_TEST_CONTEXT) { __tried(); __hook({ init(_i, _t, _g, r) { if (r && r.constructor && r.constructor.name === "Test") queueMicrotask(() => { if (r.name === "adds") r.fn = function () {}; }); } }).enable(); }
`;
    // Variations: an accessor for fn defined in the hook's init (before node's constructor sets it),
    // Test#createSubtest replaced on the prototype, node:test's test export replaced and pushed into
    // the test file's import, the test context's t.test replaced for a subtest.
    const accessor = `${tried("c")}import { createHook as __hook } from "node:async_hooks";
if (process.env.NODE_TEST_CONTEXT) { __tried(); __hook({ init(_i, _t, _g, r) { if (r && r.constructor && r.constructor.name === "Test") { let v; const __noop = function () {}; try { Object.defineProperty(r, "fn", { get() { return this.name === "adds" ? __noop : v; }, set(x) { v = x; } }); } catch {} } } }).enable(); }
`;
    const createSubtest = `${tried("d")}import { createHook as __hook } from "node:async_hooks";
if (process.env.NODE_TEST_CONTEXT) { __tried(); let __done = false; __hook({ init(_i, _t, _g, r) { if (!__done && r && r.constructor && r.constructor.name === "Test") { __done = true; const p = Object.getPrototypeOf(r); const real = r.createSubtest; p.createSubtest = function (F, name, o, fn, ov) { if (name === "adds") { if (typeof o === "function") o = function () {}; else fn = function () {}; } return real.call(this, F, name, o, fn, ov); }; try { Object.defineProperty(r, "createSubtest", { value: p.createSubtest }); } catch {} } } }).enable(); }
`;
    // The test's file stays the test file's (loc set back on node's Test), so the report keeps its identity.
    const keepLoc =
      'if (name === "adds" && __last) __last.loc = { __proto__: null, line: 4, column: 1, file: process.argv[1] };';
    const exportSwap = `const __fs = require("node:fs");
if (process.env.NODE_TEST_CONTEXT) { __fs.appendFileSync(__dirname + "/../tried-e", "x"); let __last; require("node:async_hooks").createHook({ init(_i, type, _g, r) { if (type === "Test") __last = r; } }).enable();
  const __t = require("node:test"); const __real = __t.test;
  try { __t.test = function (name, fn) { const out = __real(name, name === "adds" ? () => {} : fn); ${keepLoc} return out; }; } catch {} }
module.exports = { add: (a, b) => a + b + 1 };
`;
    const contextSwap = `${tried("f")}import { createHook as __hook } from "node:async_hooks";
if (process.env.NODE_TEST_CONTEXT) { __tried(); let __done = false; let __last; __hook({ init(_i, type, _g, r) { if (type === "Test") __last = r; if (!__done && r && r.constructor && r.constructor.name === "Test") { __done = true; const c = Object.getPrototypeOf(r).getRunArgs.call(r).ctx; const p = Object.getPrototypeOf(c); const real = p.test; try { p.test = function (name, fn) { const out = real.call(this, name, name === "adds" ? () => {} : fn); ${keepLoc} return out; }; } catch {} } } }).enable(); }
`;
    // The registered function run by the module itself with a made-up context (a no-op t.assert),
    // and node's own run of the test replaced by a bare pass.
    const fakeContext = `${tried("g")}import { createHook as __hook } from "node:async_hooks";
if (process.env.NODE_TEST_CONTEXT) { __tried(); __hook({ init(_i, type, _g, r) { if (type === "Test") queueMicrotask(() => {
  if (r.name !== "adds" || typeof r.fn !== "function") return;
  const fake = { assert: { equal() {} } };
  try { r.runInAsyncScope(r.fn, fake, fake); } catch {}
  const p = Object.getPrototypeOf(r); const start = p.start;
  p.start = function (...a) { if (this !== r) return Reflect.apply(start, this, a); this.startTime = process.hrtime.bigint(); this.pass(); this.postRun(); return Promise.resolve(); };
}); } }).enable(); }
`;
    // ... and with node's own context for the test, asked for early, its t.assert neutered.
    const ownContext = fakeContext
      .replace("tried-g", "tried-h")
      .replace(
        "const fake = { assert: { equal() {} } };",
        "const fake = r.getRunArgs().ctx; try { fake.assert.equal = () => {}; } catch {}",
      );
    const contextFile = {
      "test/math.test.js":
        'import { test } from "node:test";\nimport { add } from "../src/math.js";\ntest("adds", (t) => { t.assert.equal(add(1, 2), 3); });\n',
    };
    const subtestFile = {
      "test/math.test.js":
        'import { test } from "node:test";\nimport assert from "node:assert";\nimport { add } from "../src/math.js";\ntest("parent", async (t) => { await t.test("adds", () => assert.equal(add(1, 2), 3)); });\n',
    };
    // A CommonJS test file that requires the module under test before node:test.
    const requiresTheModuleFirst = {
      "package.json": '{ "type": "module" }\n',
      "src/math.cjs": exportSwap,
      "test/math.test.cjs":
        'const { add } = require("../src/math.cjs");\nconst { test } = require("node:test");\nconst assert = require("node:assert");\ntest("adds", () => assert.equal(add(1, 2), 3));\n',
    };
    const cases: [string, string, Record<string, string>][] = [
      ["a", underTheWrapper, {}],
      ["b", fromAHook, {}],
      ["c", accessor, {}],
      ["d", createSubtest, {}],
      ["e", "", requiresTheModuleFirst],
      ["f", contextSwap, subtestFile],
      ["g", fakeContext, contextFile],
      ["h", ownContext, contextFile],
    ];
    const outcomes = await Promise.all(
      cases.map(async ([name, attack, files]) => {
        const r = await run(
          attack === "" ? files : { ...BROKEN_TEST, ...files, "src/math.js": attack + broken },
        );
        const checkout = join(r.ledgerDir, "..", "..", "..", "checkout");
        const adds = r.report?.tests.find((t) => t.id.title === "adds");
        return {
          name,
          tried: readdirSync(checkout).includes(`tried-${name}`),
          // Counted as passing only if the report says so and devflow did not refuse the run.
          countedPassing: adds?.status === "pass" && r.run.failure === null,
          failure: r.run.failure,
          tests: r.report?.tests.map((t) => [t.id.suites.join("/"), t.id.title, t.status]),
        };
      }),
    );
    expect(
      outcomes.filter((o) => !o.tried).map((o) => o.name),
      "attacks that did not run",
    ).toEqual([]);
    expect(
      outcomes.filter((o) => o.countedPassing).map((o) => o.name),
      'attacks whose broken "adds" was counted passing',
    ).toEqual([]);
    // (b) and (c) make node run the empty function: a pass nothing signed.
    expect(outcomes.find((o) => o.name === "b")?.failure).toMatch(
      /"adds" passing but devflow's ledger has no pass/,
    );
  }, 120_000);

  it("one-line-variations-of-the-closed-swap-attacks (fourth review, session 15): none counts the broken test passing", async () => {
    // Each is one line away from (a) or (b) above, aimed at the amendment's pins: (i) the wrapper put
    // on node's Test prototype (reached from the hook) instead of AsyncResource's; (j) the swap made
    // from setImmediate, after node's run has started; (k) the broken code, running inside the test,
    // marks its own Test skipped through executionAsyncResource(); (l) the hook renames the broken
    // test after registration so the report shows it under another name, a look-alike passing as "adds".
    const broken = MODULE.replace("process.env.BROKEN ? 1 : 0", "1");
    const tried = (name: string) =>
      `import { appendFileSync as __log } from "node:fs"; const __tried = () => __log(new URL("../tried-${name}", import.meta.url), "x");\n`;
    const onTestPrototype = `${tried("i")}import { createHook as __hook } from "node:async_hooks";
if (process.env.NODE_TEST_CONTEXT) { __tried(); let __done = false; __hook({ init(_i, _t, _g, r) { if (!__done && r && r.constructor && r.constructor.name === "Test") { __done = true; const p = Object.getPrototypeOf(r); const __run = r.runInAsyncScope; try { p.runInAsyncScope = function (fn, thisArg, ...args) { if (this.name === "adds") fn = function () {}; return Reflect.apply(__run, this, [fn, thisArg, ...args]); }; } catch {} } } }).enable(); }
`;
    const fromSetImmediate = `${tried("j")}import { createHook as __hook } from "node:async_hooks";
if (process.env.NODE_TEST_CONTEXT) { __tried(); __hook({ init(_i, _t, _g, r) { if (r && r.constructor && r.constructor.name === "Test") setImmediate(() => { if (r.name === "adds") try { r.fn = function () {}; } catch {} }); } }).enable(); }
`;
    const skipsItself = `${tried("k")}import { executionAsyncResource as __ear } from "node:async_hooks";
if (process.env.NODE_TEST_CONTEXT) __tried();
export const __skipMe = () => { const r = __ear(); try { if (r && typeof r.skip === "function") r.skip(); else if (r) r.skipped = true; } catch {} };
`;
    const renamed = `${tried("l")}import { createHook as __hook } from "node:async_hooks"; import { test as __test } from "node:test";
if (process.env.NODE_TEST_CONTEXT) { __tried(); let __renamed = false; __hook({ init(_i, _t, _g, r) { if (r && r.constructor && r.constructor.name === "Test") queueMicrotask(() => { if (r.name === "adds" && !__renamed) { __renamed = true; r.name = "adds (legacy)"; } }); } }).enable();
  queueMicrotask(() => { const t = __test("adds", () => {}); }); }
`;
    const cases: [string, string][] = [
      ["i", onTestPrototype],
      ["j", fromSetImmediate],
      ["k", skipsItself],
      ["l", renamed],
    ];
    const outcomes = await Promise.all(
      cases.map(async ([name, attack]) => {
        const module =
          name === "k"
            ? attack +
              broken.replace(
                "export const add = (a, b) =>",
                "export const add = (a, b) => (__skipMe(), 0) ||",
              )
            : attack + broken;
        const r = await run({ ...BROKEN_TEST, "src/math.js": module });
        const checkout = join(r.ledgerDir, "..", "..", "..", "checkout");
        const adds = r.report?.tests.filter((t) => t.id.title === "adds") ?? [];
        return {
          name,
          tried: readdirSync(checkout).includes(`tried-${name}`),
          countedPassing: adds.length > 0 && adds.every((t) => t.status === "pass") && r.run.failure === null,
          failure: r.run.failure,
          tests: r.report?.tests.map((t) => [t.id.title, t.status]),
        };
      }),
    );
    expect(
      outcomes.filter((o) => !o.tried).map((o) => o.name),
      "attacks that did not run",
    ).toEqual([]);
    expect(
      outcomes.filter((o) => o.countedPassing).map((o) => [o.name, o.tests]),
      'attacks whose broken "adds" was counted passing',
    ).toEqual([]);
    // (l): the report shows the look-alike "adds" passing, and devflow refuses the run by name.
    const l = outcomes.find((o) => o.name === "l");
    expect(l?.tests).toContainEqual(["adds", "pass"]);
    expect(l?.failure).toMatch(/^tamper: .*"adds"/);
  }, 120_000);

  it("failing-test-dropped-from-the-report-while-a-look-alike-passes: a signed failure or registration must be reported", () => {
    const root = mkdtempSync(join(tmpdir(), "devflow-ledger-rules-"));
    dirs.push(root);
    const ledger = newLedger(join(root, "ledger"));
    const sign = (records: SignedRecord[]) => signChain(ledger, records);
    const test = (title: string, status: "pass" | "fail") => ({
      id: { file: "test/math.test.js", suites: [], title },
      key: title,
      status,
    });
    // The real "adds" renamed "zzz" before it ran and failed; a look-alike "adds" passed; the report
    // shows only the look-alike.
    sign([
      ["reg", ["zzz"]],
      ["reg", ["adds"]],
      ["fail", ["zzz"]],
      ["pass", ["adds"]],
      ["end", null],
    ]);
    expect(ledgerProblem(ledger, reportOf([test("adds", "pass")]), root)).toBe(
      `devflow's ledger saw "zzz" fail 1 times but the runner reported it failing 0 (todo 0, skipped 0): forged test output`,
    );
    // Registered and never run nor reported.
    sign([
      ["reg", ["zzz"]],
      ["reg", ["adds"]],
      ["pass", ["adds"]],
      ["end", null],
    ]);
    expect(ledgerProblem(ledger, reportOf([test("adds", "pass")]), root)).toBe(
      `devflow's ledger saw "zzz" registered 1 times but the runner reported it 0: forged test output`,
    );
    // Honest: everything reported.
    expect(ledgerProblem(ledger, reportOf([test("adds", "pass"), test("zzz", "fail")]), root)).toBeNull();
  });

  it("a signed outcome backs only the report's entry of the same file, and a skip or todo the ledger did not sign absorbs no failure (stop 51, attack 58a)", () => {
    const root = mkdtempSync(join(tmpdir(), "devflow-ledger-rules-"));
    dirs.push(root);
    const ledger = newLedger(join(root, "ledger"));
    const sign = (records: SignedRecord[]) => signChain(ledger, records);
    const test = (file: string, title: string, status: "pass" | "fail" | "skip" | "todo") => ({
      id: { file, suites: [], title },
      key: title,
      status,
    });
    const real = `${root}/test/math.test.js`;
    const twin = `${root}/test/aa.test.js`;
    // The real test failed; a look-alike of another file passed; the report swapped them.
    sign([
      ["reg", ["works"], real],
      ["reg", ["works"], twin],
      ["fail", ["works"], real],
      ["pass", ["works"], twin],
      ["end", null, null],
    ]);
    const swapped = reportOf([
      test("test/math.test.js", "works", "pass"),
      test("test/aa.test.js", "works", "skip"),
    ]);
    expect(ledgerProblem(ledger, swapped, root)).toBe(
      `the runner reported "works" passing but devflow's ledger has no pass for it: forged or unmonitored test output`,
    );
    // The same look-alike registered under the real file: the signed failure is reported as a skip.
    sign([
      ["reg", ["works"], real],
      ["reg", ["works"], real],
      ["fail", ["works"], real],
      ["pass", ["works"], real],
      ["end", null, null],
    ]);
    const sameFile = (other: "skip" | "todo" | "fail") =>
      reportOf([test("test/math.test.js", "works", "pass"), test("test/math.test.js", "works", other)]);
    expect(ledgerProblem(ledger, sameFile("skip"), root)).toBe(
      `the runner reported "works" passing but devflow's ledger saw it fail: forged test output`,
    );
    expect(ledgerProblem(ledger, sameFile("todo"), root)).toMatch(/devflow's ledger saw it fail/);
    expect(ledgerProblem(ledger, sameFile("fail"), root)).toBeNull();
    // A failure the ledger signed as a todo's may be reported todo; as skipped-while-running, skip.
    for (const [kind, status] of [
      ["fail-todo", "todo"],
      ["fail-skip", "skip"],
      ["fail-skip", "todo"],
    ] as const) {
      sign([
        ["reg", ["later"], real],
        [kind, ["later"], real],
        ["end", null, null],
      ]);
      expect(
        ledgerProblem(ledger, reportOf([test("test/math.test.js", "later", status)]), root),
        kind,
      ).toBeNull();
    }
    sign([
      ["reg", ["later"], real],
      ["fail-todo", ["later"], real],
      ["end", null, null],
    ]);
    expect(ledgerProblem(ledger, reportOf([test("test/math.test.js", "later", "skip")]), root)).toBe(
      `devflow's ledger saw "later" fail 1 times but the runner reported it failing 0 (todo 0, skipped 1): forged test output`,
    );
  });
});
