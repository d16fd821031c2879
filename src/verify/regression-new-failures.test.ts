import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { baselineIn, PYTEST_CALC, regressionIn, writeFiles } from "../../test/support/regression-project.js";
import type { RegressionEnvelope } from "../artifacts/schemas/verifier-envelope.js";
import type { RegressionBaseline } from "./regression.js";

/**
 * Regression: a test failing now that did not fail on base passed regression whenever base was red
 * (ADR 0080). Cause: both comparisons (the runner's report, and console parsing) listed such tests
 * as "new failing test(s) not on base" and judged them only through the exit code, which says
 * nothing when base already exits non-zero, as it does whenever the bug's failing test is in the
 * suite. So a coder could add a failing test, break a test base skipped, or, with a test command
 * that stops at the first failure (`pytest -x`, `mocha --bail`), break any test after the seam's,
 * which base's run never reached: "no regressions". Fix: a test failing now that did not fail on
 * base fails regression, by name.
 */
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "devflow-regression-new-failures-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const write = (files: Record<string, string>) => writeFiles(dir, files);
const baseline = (command: string, seamFiles: string[] = []) => baselineIn(dir, command, seamFiles);
const regression = (b: RegressionBaseline, command: string, seamFile: string, changedFiles: string[]) =>
  regressionIn(dir, b, command, seamFile, changedFiles);

const payload = (e: RegressionEnvelope) => e.native_payload as Record<string, unknown>;

/** node:test: `trim` is the bug (its test is the seam, red on base), `add` is right. */
const NODE_BASE = {
  "calc.mjs":
    "export const add = (a, b) => a + b;\nexport const trim = (s) => s;\nexport const negatives = false;\n",
  "calc.test.mjs": [
    'import test from "node:test";',
    'import assert from "node:assert";',
    'import { add, negatives } from "./calc.mjs";',
    'test("add works", () => assert.equal(add(2, 2), 4));',
    'test("add handles negatives", { skip: !negatives }, () => assert.equal(add(-1, -2), -3));',
    "",
  ].join("\n"),
  "trim.test.mjs": [
    'import test from "node:test";',
    'import assert from "node:assert";',
    'import { trim } from "./calc.mjs";',
    'test("trim strips spaces", () => assert.equal(trim(" a "), "a"));',
    "",
  ].join("\n"),
};
const FIXED_TRIM = "export const trim = (s) => s.trim();\n";

describe("a test failing now that did not fail on base (red base)", () => {
  it("fails on a failing test file the attempt added", async () => {
    await write(NODE_BASE);
    const b = await baseline("node --test");
    expect(b.exitCode).not.toBe(0); // the seam's test is red on base
    await write({
      "calc.mjs": `export const add = (a, b) => a + b;\n${FIXED_TRIM}export const negatives = false;\n`,
      "extra.test.mjs":
        'import test from "node:test";\nimport assert from "node:assert";\ntest("extra", () => assert.fail("red"));\n',
    });
    const e = await regression(b, "node --test", "trim.test.mjs", ["calc.mjs", "extra.test.mjs"]);
    expect(e.overall_result).toBe("fail");
    expect(e.summary).toContain("1 test(s) fail now that did not fail on base: extra.test.mjs > extra");
    expect(payload(e).new_failures).toEqual(["extra.test.mjs > extra"]);
  });

  it("fails on a test base skipped that the attempt made run and fail", async () => {
    await write(NODE_BASE);
    const b = await baseline("node --test");
    // What the attempt changed turns the skipped test on, and breaks what it checks.
    await write({
      "calc.mjs": `export const add = (a, b) => Math.abs(a) + Math.abs(b);\n${FIXED_TRIM}export const negatives = true;\n`,
    });
    const e = await regression(b, "node --test", "trim.test.mjs", ["calc.mjs"]);
    expect(e.overall_result).toBe("fail");
    expect(e.summary).toContain("fail now that did not fail on base: calc.test.mjs > add handles negatives");
  });

  it("fails on a new failing test in console-parsed output (no runner recognised)", async () => {
    await write({ ...NODE_BASE, "run.sh": "node --test\n" });
    const b = await baseline("sh run.sh");
    expect(b.invocation).toBeNull();
    await write({
      "calc.mjs": `export const add = (a, b) => a + b;\n${FIXED_TRIM}export const negatives = false;\n`,
      "extra.test.mjs":
        'import test from "node:test";\nimport assert from "node:assert";\ntest("extra", () => assert.fail("red"));\n',
    });
    const e = await regression(b, "sh run.sh", "trim.test.mjs", ["calc.mjs", "extra.test.mjs"]);
    expect(e.overall_result).toBe("fail");
    expect(e.summary).toBe("1 test(s) fail now that did not fail on base: extra");
  });

  it("passes an honest fix on a red base whose other failing test still fails as it did", async () => {
    await write({
      ...NODE_BASE,
      "flaky.test.mjs":
        'import test from "node:test";\nimport assert from "node:assert";\ntest("needs the network", () => assert.fail("offline"));\n',
    });
    const b = await baseline("node --test");
    await write({
      "calc.mjs": `export const add = (a, b) => a + b;\n${FIXED_TRIM}export const negatives = false;\n`,
    });
    const e = await regression(b, "node --test", "trim.test.mjs", ["calc.mjs"]);
    expect(e.overall_result).toBe("pass");
    expect(e.summary).toContain("still failing as on base: flaky.test.mjs > needs the network");
    expect(payload(e).new_failures).toEqual([]);
  });

  it("a pytest -x run on base reaches every test, so breaking one after the seam's is a regression", async () => {
    await write(PYTEST_CALC);
    const command = "python3 -m pytest -x -p no:cacheprovider tests";
    const b = await baseline(command, ["tests/test_add.py"]);
    // `-x` is undone by devflow's plugin (ADR 0083): base's run went on past the seam's failing test.
    expect(b.report?.tests.map((t) => `${t.id.file} ${t.status}`)).toEqual([
      "tests/test_add.py fail",
      "tests/test_mul.py pass",
    ]);
    await write({ "calc.py": "def mul(a, b):\n    return a + b\n\ndef add(a, b):\n    return a + b\n" });
    const e = await regression(b, command, "tests/test_add.py", ["calc.py"]);
    expect(e.overall_result).toBe("fail");
    expect(e.summary).toContain(
      "1 test(s) green on base are not green now: tests/test_mul.py > pytest > tests.test_mul > test_mul (fail)",
    );
  });
});
