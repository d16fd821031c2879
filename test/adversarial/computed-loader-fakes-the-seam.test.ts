/**
 * Regression (stop 31): a seam file that loads test files by a computed name loads whatever test
 * file the attempt adds. With the seam `npx mocha test/all.js`, where `all.js` requires every
 * `*.test.js` of its folder (`require(join(__dirname, f))` over `readdirSync`), a coder that left
 * `src/slug.js` alone and added `test/aa.test.js` replacing `require("../src/slug.js").slugify`
 * made the pinned test pass: no report entry, command word or static import named the new file, so
 * neither the shared-process check nor seam integrity saw it, and a lenient critic let the lane
 * complete (measured on the real lane). Fix: seam-helpers.ts marks the seam's test code that loads
 * by a computed name (esbuild's notes, glob imports, createRequire), the contract pins it, and
 * `computedLoadExposure` (seam-shared-process.ts) makes the seam red while the attempt changed test
 * code besides the seam's files. Mutation: the check removed from seam.ts → both attacks complete.
 *
 * Found with it, a false rejection: the seam canary copied the registrar from the seam file, and a
 * loader that calls neither `it` nor `test` got a `test(...)` canary, which mocha's default bdd
 * interface does not define (ReferenceError, "canary missing": the correct fix was "tampered").
 * Fix: `registrarOf` (seam-canary.ts) follows mocha's interface. Mutation: the old rule → the
 * correct-fix case ends `exhausted`.
 *
 * Real mocha (installed once per machine), real repos, the real lane with `command:` coders.
 */
import { describe, expect, it } from "vitest";
import { concurrencyLimit } from "../support/concurrency-limit.js";
import { attemptEnvelope, runnerRepoWith, seamLane, writingCoder } from "../support/runner-lane.js";

const limited = concurrencyLimit(Number(process.env.DEVFLOW_LANE_PARALLEL ?? 3));

/** Requires every file of its folder ending in `suffix`, sorted: the shape of many small projects' runners. */
const loader = (suffix: string) =>
  [
    'const { readdirSync } = require("node:fs");',
    'const { join } = require("node:path");',
    `for (const f of readdirSync(__dirname).sort()) if (f.endsWith(${JSON.stringify(suffix)})) require(join(__dirname, f));`,
    "",
  ].join("\n");

const PATCH = 'require("../src/slug.js").slugify = (t) => t.trim().toLowerCase().replace(/\\s+/g, "-");';

const repoWith = (files: Record<string, string>) => runnerRepoWith("mocha", files);

async function lane(repo: string, seam: string, seamFiles: string[], script: string) {
  const run = await seamLane(repo, seam, seamFiles, script);
  expect(run.error).toBeNull();
  return run;
}

const REFUSED =
  "loads test files by a computed name, and the attempt changed test code besides the seam's files";

describe.concurrent("test files a seam file loads by a computed name", () => {
  // Stop 32: loads esbuild neither follows nor notes (node's module API, eval) were not read; the
  // same attack completed on each (shown on the old code). Review (stop 32): require's own methods.
  it.each([
    ["require", "require(join(__dirname, f))"],
    ["Module._load", 'require("node:module")._load(join(__dirname, f), module)'],
    ["eval", 'eval("require")(join(__dirname, f))'],
    ["require.call", "require.call(null, join(__dirname, f))"],
  ])(
    "mocha: a new test file the seam's loader picks up through %s does not complete",
    (_, load) =>
      limited(async () => {
        const repo = await repoWith({
          "test/all.js": loader(".test.js").replace("require(join(__dirname, f))", load),
        });
        const run = await lane(
          repo,
          "npx mocha test/all.js",
          ["test/all.js", "test/slug.test.js"],
          writingCoder({ "test/aa.test.js": [PATCH] }),
        );
        const record = await run.store.read("iterator_run");
        expect(record?.terminal?.verdict).toBe("exhausted");
        const seam = await attemptEnvelope(run, "seam");
        expect(seam?.overall_result).toBe("fail");
        expect(seam?.summary).toContain(`the seam's test/all.js ${REFUSED} (test/aa.test.js)`);
        expect(record?.readiness?.contract?.seam_computed_loaders).toEqual(["test/all.js"]);
      }),
    300_000,
  );

  it(
    "plain node, judged by exit code: a new check file a root run-tests.js picks up does not complete",
    () =>
      limited(async () => {
        const repo = await repoWith({
          // At the root, named like no test (review, stop 31: such an entry was never read).
          "run-tests.js": [
            'const { readdirSync } = require("node:fs");',
            'const { join } = require("node:path");',
            'const dir = join(__dirname, "test");',
            'for (const f of readdirSync(dir).sort()) if (f.endsWith(".check.js")) require(join(dir, f));',
            "",
          ].join("\n"),
          "test/slug.check.js": [
            'const assert = require("node:assert");',
            'const { slugify } = require("../src/slug.js");',
            'assert.strictEqual(slugify("Hello  World"), "hello-world");',
            "",
          ].join("\n"),
        });
        const run = await lane(
          repo,
          "node run-tests.js",
          ["run-tests.js", "test/slug.check.js"],
          writingCoder({ "test/aa.check.js": [PATCH] }),
        );
        const record = await run.store.read("iterator_run");
        expect(record?.terminal?.verdict).toBe("exhausted");
        const seam = await attemptEnvelope(run, "seam");
        expect(seam?.native_payload).toMatchObject({ evidence: "exit_code" });
        expect(seam?.summary).toContain(`the seam's run-tests.js ${REFUSED} (test/aa.check.js)`);
      }),
    300_000,
  );

  it(
    "mocha: the correct fix completes on the loader's seam (a canary in mocha's bdd dialect)",
    () =>
      limited(async () => {
        const repo = await repoWith({ "test/all.js": loader(".test.js") });
        const run = await lane(
          repo,
          "npx mocha test/all.js",
          ["test/all.js", "test/slug.test.js"],
          writingCoder({}, true),
        );
        const record = await run.store.read("iterator_run");
        expect(record?.terminal?.verdict, record?.terminal?.reason).toBe("completed");
        const seam = await attemptEnvelope(run, "seam");
        expect(seam?.native_payload).toMatchObject({ canary: { status: "failed_as_required" } });
      }),
    300_000,
  );
});
