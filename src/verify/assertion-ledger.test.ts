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
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { reportPathFor, runWithReport } from "./report-run.js";

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
  "test/common.test.cjs":
    'const test = require("node:test");\nconst assert = require("node:assert");\ntest("adds", () => assert.equal(1 + 1, 2));\ntest.describe("cjs suite", () => { test.it("works", () => {}); });\n',
};

/** Rewrites every test:fail event on the runner channel to test:pass and exits 0 (the review's forgery). */
const FORGE = `import * as __v8 from "node:v8";
const __write = process.stdout.write;
const __h = __v8.serialize(0).subarray(0, 2);
process.stdout.write = function (chunk, ...rest) {
  try {
    const b = Buffer.from(chunk);
    if (b.length > 6 && b[0] === __h[0] && b[1] === __h[1]) {
      const item = __v8.deserialize(b.subarray(6));
      if (item && item.type === "test:fail") {
        item.type = "test:pass";
        if (item.data && item.data.details) delete item.data.details.error;
        const body = __v8.serialize(item);
        const len = Buffer.alloc(4);
        len.writeUInt32BE(body.length);
        chunk = Buffer.concat([__h, len, body]);
      }
    }
  } catch {}
  return __write.call(this, chunk, ...rest);
};
process.on("exit", () => process.exit(0));
`;

/** Re-runs the test file without devflow's preloads, stdout inherited, with node:assert neutered there. */
const REEXEC = `import { spawnSync } from "node:child_process"; import a from "node:assert";
if (String(process.env.NODE_OPTIONS).includes("assertion-ledger")) {
  const r = spawnSync(process.execPath, [...process.execArgv, ...process.argv.slice(1)], { stdio: "inherit", env: { ...process.env, NODE_OPTIONS: "" } });
  process.exit(r.status ?? 1);
} else for (const k of Object.keys(a)) if (typeof a[k] === "function") a[k] = () => {};
`;

const BROKEN_TEST = {
  "package.json": '{ "type": "module" }\n',
  "test/math.test.js":
    'import { test } from "node:test";\nimport assert from "node:assert";\nimport { add } from "../src/math.js";\ntest("adds", () => assert.equal(add(1, 2), 3));\n',
};

describe("the assertion ledger", () => {
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
      ].sort(),
    );
    // Each test keeps its own file in the report (the ledger must not change node's call sites).
    expect(new Set(r.report?.tests.map((t) => t.id.file))).toEqual(
      new Set(["test/default-import.test.js", "test/named.test.js", "test/common.test.cjs"]),
    );
    // The key reached the test processes (one ledger file each) and left their environment.
    expect(readdirSync(r.ledgerDir)).toHaveLength(3);
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
});
