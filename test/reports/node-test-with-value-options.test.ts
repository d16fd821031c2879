/**
 * Regression: `node --import <module> --test` (real node:test, the node running devflow).
 *
 * Cause (found in stop 46): node:test's invocation allowed node options before `--test` only when
 * they were one word (`--import=tsx`), so `node --import tsx --test`, the way many TypeScript
 * projects run node:test, named no runner. The suite had no report: the seam was judged by exit
 * code only and regression read the console. Fix: options that take their value as the next word
 * (`--import`, `--require`/`-r`, `--loader`, `--env-file`, `--conditions`) are part of the
 * invocation (src/verify/test-reports/node-test.ts).
 */
import { describe, expect, it } from "vitest";
import { brokenThenFixed, fixtureBaseline, fixtureProject } from "../support/fixture-regression.js";

const PACKAGE = JSON.stringify({
  name: "fixture-node-test",
  private: true,
  type: "module",
  scripts: { test: "node --import ./test/register.mjs --test test/" },
});

describe("node --import <module> --test", () => {
  it("is judged by node:test's report: a break of clamp fails by name, the correct fix passes", async ({
    onTestFinished,
  }) => {
    const repo = await fixtureProject(
      "node-test",
      { "package.json": PACKAGE, "test/register.mjs": "globalThis.registered = true;\n" },
      onTestFinished,
    );
    const base = await fixtureBaseline(repo, "npm test");
    expect(base.invocation?.runner).toBe("node-test");
    expect(base.report?.complete, base.error ?? "").toBe(true);
    const { broken, fixed } = await brokenThenFixed(repo, "npm test", base);
    expect(broken.overall_result).toBe("fail");
    expect(broken.summary).toContain("math > clamp > works");
    expect(fixed.overall_result, fixed.summary).toBe("pass");
    expect(fixed.summary).toContain("node-test report");
  }, 240_000);
});
