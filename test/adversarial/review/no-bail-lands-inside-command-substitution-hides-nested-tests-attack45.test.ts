/**
 * Hostile review (attack 45, of ADR 0083): FALSE COMPLETION opened by regression's every-test
 * argument.
 *
 * Attack: a mocha project whose test script is the common `mocha $(find test -name '*.test.js')`
 * (spec files found recursively by `find`; tests in test/ and in test/unit/). The coder breaks
 * `clamp`, which only test/unit/math.test.js checks. Regression says "no regressions".
 *
 * Cause: src/verify/report-run.ts `withEveryTestRun` appends mocha's `--no-bail` with
 * src/verify/test-reports/script-rewrite.ts `appendArguments`, whose `endOfArguments` takes the
 * first unquoted `)` for the end of mocha's arguments. The `)` that closes `$( ... )` is that, so the
 * argument lands inside the command substitution: `mocha ... $(find test -name '*.test.js'
 * --no-bail)`. `find` rejects the unknown predicate and prints nothing, mocha gets no spec and runs
 * its default spec, `./test/*.{js,cjs,mjs}` (not recursive). The nested test files never run, on
 * base or on the attempt, so nothing the coder breaks there is seen. Before ADR 0083 the same
 * command ran every file (the report flags are inserted right after `mocha`, not appended). The
 * seam verifier does not help: it runs only the seam's test file.
 *
 * Second shape (same cause): specs next to the code, `"test": "mocha $(find src -name '*.spec.js')"`,
 * no test/ folder, run as `npm test`. There mocha's default spec finds nothing, the report run fails
 * on base, and the baseline falls back to the console parser (regression.ts
 * `takeRegressionBaseline`), which names one merged test ("works"): the same break of clamp passes.
 * The control, `mocha 'src/**\/*.spec.js'`, catches it by full identity.
 *
 * Realism: `"test": "mocha $(find test -name '*.test.js')"` is an ordinary, much-copied package.json
 * script (several public repositories and tutorials use exactly it); tests in a subfolder of test/
 * are ordinary too. The same placement puts `--bail=0` / `--maxfail=0` into any `$(...)` the
 * command ends with (`jest --maxWorkers=$(nproc)`, `pytest -n $(nproc)`).
 *
 * Fixed (stop 44): `endOfArguments` takes a `$(…)` (nested, quoted) or a backquoted command as one
 * argument, so the argument goes after it (src/verify/seam-canary.test.ts pins the placements).
 * These cases were pinned with `it.fails` until then.
 *
 * Run: VITEST_MAX_WORKERS=1 npx vitest run test/adversarial/review/no-bail-lands-inside-command-substitution-hides-nested-tests-attack45.test.ts
 */
import { mkdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { FixtureRepo } from "../../reports/runner-fixture.js";
import {
  breakClamp,
  editFile,
  fixSlug,
  fixtureBaseline,
  fixtureProject,
  fixtureRegression,
} from "../../support/fixture-regression.js";

const COMMAND = "mocha $(find test -name '*.test.js')";

/** test/add.test.js (top level) checks add; test/unit/math.test.js (nested) checks clamp. */
const FILES: Record<string, string> = {
  "test/add.test.js": `const assert = require("node:assert");
const { add } = require("../src/math.js");
describe("add", () => {
  it("adds", () => assert.strictEqual(add(2, 3), 5));
});
`,
  "test/unit/math.test.js": `const assert = require("node:assert");
const { clamp } = require("../../src/math.js");
describe("clamp", () => {
  it("clamps to the high end", () => assert.strictEqual(clamp(5, 0, 3), 3));
});
`,
};

// The fixture's own test/math.test.js moves into the subfolder's file above.
const project = (onTestFinished: (fn: () => Promise<void>) => void) =>
  fixtureProject("mocha", { "test/math.test.js": "", ...FILES }, onTestFinished);

describe("`mocha $(find test -name '*.test.js')`: --no-bail follows the $( ... ), not inside it (attack 45)", () => {
  it("control: a break in a top-level test file is still caught", async ({ onTestFinished }) => {
    const repo = await project(onTestFinished);
    const b = await fixtureBaseline(repo, COMMAND);
    expect(b.report?.complete, b.error ?? "no complete report").toBe(true);
    await fixSlug(repo);
    await editFile(repo, "src/math.js", "return a + b;", "return a - b;");
    const e = await fixtureRegression(repo, COMMAND, b);
    expect(e.overall_result).toBe("fail");
    expect(e.summary).toContain("test/add.test.js > add > adds");
    // The cause, fixed: the argument went into find's arguments; the `$( ... )` is left whole.
    const ran = (e.native_payload as { ran_command: string }).ran_command;
    expect(ran).toMatch(/^mocha --no-bail --require /);
    expect(ran).toMatch(/ \$\(find test -name '\*\.test\.js'\)$/);
  });

  it("base's regression run reaches the nested test files the command finds", async ({ onTestFinished }) => {
    const repo = await project(onTestFinished);
    const b = await fixtureBaseline(repo, COMMAND);
    expect(b.report?.tests.map((t) => t.id.file)).toContain("test/unit/math.test.js");
  });

  it("a break of clamp (checked only in test/unit/) fails regression", async ({ onTestFinished }) => {
    const repo = await project(onTestFinished);
    const b = await fixtureBaseline(repo, COMMAND);
    expect(b.report?.complete, b.error ?? "no complete report").toBe(true);
    await fixSlug(repo);
    await breakClamp(repo);
    const e = await fixtureRegression(repo, COMMAND, b);
    // Before the fix: "no regressions: all 1 test(s) green on base are still green".
    expect(e.overall_result, e.summary).toBe("fail");
  });
});

/** Specs next to the code (src/spec/), no test/ folder; `npm test` runs `script`. */
async function colocated(
  script: string,
  onTestFinished: (fn: () => Promise<void>) => void,
): Promise<FixtureRepo> {
  const repo = await fixtureProject("mocha", {}, onTestFinished);
  await mkdir(join(repo.dir, "src/spec"), { recursive: true });
  for (const name of ["slug", "math"]) {
    const text = await readFile(join(repo.dir, `test/${name}.test.js`), "utf8");
    await repo.write(`src/spec/${name}.spec.js`, text.replaceAll("../src/", "../"));
  }
  await rm(join(repo.dir, "test"), { recursive: true });
  const pkg = {
    name: "fixture-mocha",
    private: true,
    scripts: { test: script },
    devDependencies: { mocha: "10.8.2" },
  };
  await repo.write("package.json", `${JSON.stringify(pkg, null, 2)}\n`);
  return repo;
}

async function colocatedHostileAttempt(script: string, onTestFinished: (fn: () => Promise<void>) => void) {
  const repo = await colocated(script, onTestFinished);
  const b = await fixtureBaseline(repo, "npm test");
  await fixSlug(repo);
  await breakClamp(repo);
  return { b, e: await fixtureRegression(repo, "npm test", b, "src/spec/slug.spec.js") };
}

describe("`npm test` = `mocha $(find src -name '*.spec.js')`, specs next to the code (attack 45)", () => {
  it("control: `mocha 'src/**/*.spec.js'` catches the break of clamp by full identity", async ({
    onTestFinished,
  }) => {
    const { b, e } = await colocatedHostileAttempt("mocha 'src/**/*.spec.js'", onTestFinished);
    expect(b.report?.complete).toBe(true);
    expect(e.overall_result).toBe("fail");
    expect(e.summary).toContain("src/spec/math.spec.js > math clamp > works (fail)");
  });

  it("the same break of clamp fails regression with the find script", async ({ onTestFinished }) => {
    const { e } = await colocatedHostileAttempt("mocha $(find src -name '*.spec.js')", onTestFinished);
    // Before the fix: the base's report run found no spec (`find ... --no-bail` failed), the baseline is the
    // console's one merged name, and the attempt passes: "no regressions: all 1 test(s) green ...".
    expect(e.overall_result, e.summary).toBe("fail");
  });
});
