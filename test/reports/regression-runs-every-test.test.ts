/**
 * Regression runs every test on base and on the attempt, however the project told its runner to
 * stop at the first failure (ADR 0083), with real mocha 10 / jest 29 / vitest 4 runs.
 *
 * Cause of the bug it pins (a hostile review, stop 43): on a red base (the seam's own test fails
 * there) a suite set to bail stopped at the seam's test, so a test already broken on base that runs
 * after it never ran there. The correct fix made the seam pass, the run went on, reached that test,
 * and ADR 0080 counted it as "failing now, not on base": the fix was rejected. (Before ADR 0080 the
 * same setting let the attempt break any test after the stop unseen.) Fix: regression's runs get
 * the runner's own "do not bail" argument (`--no-bail`, `--bail=0`) after the command's arguments,
 * so it wins over the command's flags and the config's; pytest's are undone by devflow's plugin
 * (src/verify/regression-canary.test.ts, the lane test bail-red-base-rejects-correct-fix-attack44b).
 */
import { describe, expect, it } from "vitest";
import {
  breakClamp,
  fixSlug,
  fixtureBaseline,
  fixtureProject,
  fixtureRegression,
} from "../support/fixture-regression.js";

type Runner = "mocha" | "jest" | "vitest";

/** A test file that sorts after the seam's (test/slug.test.js): one test broken on base, one green. */
const LATER_TESTS: Record<Runner, string> = {
  mocha: `const assert = require("node:assert");
const { clamp } = require("../src/math.js");
describe("zz", () => {
  it("needs the network", () => assert.fail("offline"));
  it("clamps", () => assert.strictEqual(clamp(5, 0, 3), 3));
});
`,
  jest: `const assert = require("node:assert");
const { clamp } = require("../src/math.js");
describe("zz", () => {
  it("needs the network", () => assert.fail("offline"));
  it("clamps", () => assert.strictEqual(clamp(5, 0, 3), 3));
});
`,
  vitest: `import { describe, expect, it } from "vitest";
import { clamp } from "../src/math.js";
describe("zz", () => {
  it("needs the network", () => expect.fail("offline"));
  it("clamps", () => expect(clamp(5, 0, 3)).toBe(3));
});
`,
};

/** Each runner's bail, set in its config and on the command line. */
const BAIL: Array<{ runner: Runner; how: string; files: Record<string, string>; command: string }> = [
  {
    runner: "mocha",
    how: ".mocharc.json",
    files: { ".mocharc.json": '{ "bail": true }\n' },
    command: "mocha 'test/**/*.test.js'",
  },
  { runner: "mocha", how: "--bail", files: {}, command: "mocha --bail 'test/**/*.test.js'" },
  {
    runner: "jest",
    how: "jest.config.js",
    files: { "jest.config.js": "module.exports = { bail: 1 };\n" },
    command: "jest -i",
  },
  { runner: "jest", how: "--bail", files: {}, command: "jest --bail -i" },
  {
    runner: "vitest",
    how: "vitest.config.js",
    files: { "vitest.config.js": "export default { test: { bail: 1, fileParallelism: false } };\n" },
    command: "vitest run",
  },
  // vitest refuses a second `--bail`: the command's own is replaced (review, stop 44).
  {
    runner: "vitest",
    how: "--bail=1",
    files: { "vitest.config.js": "export default { test: { fileParallelism: false } };\n" },
    command: "vitest run --bail=1",
  },
];

const statusesIn = (b: Awaited<ReturnType<typeof fixtureBaseline>>, file: string) =>
  (b.report?.tests ?? [])
    .filter((t) => t.id.file === file)
    .map((t) => `${t.id.title} ${t.status}`)
    .sort();

describe.concurrent("regression's runs reach every test of a suite set to bail (ADR 0083)", () => {
  for (const { runner, how, files, command } of BAIL) {
    it(`${runner}, bail by ${how}: base reaches the tests after the seam's, a correct fix passes, a break there fails`, async ({
      onTestFinished,
    }) => {
      const repo = await fixtureProject(
        runner,
        { ...files, "test/zz.test.js": LATER_TESTS[runner] },
        onTestFinished,
      );
      const b = await fixtureBaseline(repo, command);
      expect(b.report?.complete, b.error ?? "no complete report").toBe(true);
      // Red on base at the seam's test, and still every later test ran.
      expect(statusesIn(b, "test/slug.test.js")).toContain("collapses repeated spaces fail");
      expect(statusesIn(b, "test/zz.test.js")).toEqual(["clamps pass", "needs the network fail"]);

      await fixSlug(repo);
      const fixed = await fixtureRegression(repo, command, b);
      expect(fixed.overall_result, fixed.summary).toBe("pass");
      expect(fixed.summary).toContain("still failing as on base: test/zz.test.js > zz > needs the network");

      // A hostile attempt: the same fix, and clamp broken (zz > clamps ran green on base).
      await breakClamp(repo);
      const broken = await fixtureRegression(repo, command, b);
      expect(broken.overall_result).toBe("fail");
      expect(broken.summary).toContain("test/zz.test.js > zz > clamps");
    });
  }
});
