/**
 * mocha `--parallel` (stop 50, ADR 0089): devflow's `--require` runs in mocha's main process and in
 * each worker. Only the main process may connect to devflow's report channel (a second connection
 * fails the run as tampering); the `--require` takes the address out of the environment once it
 * connected, so the workers mocha starts afterwards have none and connect nothing. Judged by the
 * report: a break of clamp fails by name, the correct fix passes.
 * Mutation: the address left in the environment (report-channel-client.cjs's `delete`): every run
 * is "2 connections" or more.
 */
import { describe, expect, it } from "vitest";
import { brokenThenFixed, fixtureBaseline, fixtureProject } from "../support/fixture-regression.js";

describe("mocha --parallel over devflow's report channel", () => {
  it("is judged by its report: a break of clamp fails by name, the correct fix passes", async ({
    onTestFinished,
  }) => {
    const repo = await fixtureProject(
      "mocha",
      {
        "package.json": JSON.stringify({
          name: "fixture-mocha",
          private: true,
          scripts: { test: "mocha --parallel --jobs 2 'test/**/*.test.js'" },
          devDependencies: { mocha: "10.8.2" },
        }),
      },
      onTestFinished,
    );
    const base = await fixtureBaseline(repo, "npm test");
    expect(base.error, base.error ?? "").toBeNull();
    // Read from mocha's report, never its console: the report is whole and names every test.
    expect(base.report, "base judged by its report").not.toBeNull();
    expect(base.report?.tests.length).toBe(7);
    const { broken, fixed } = await brokenThenFixed(repo, "npm test", base);
    expect(broken.overall_result, broken.summary).toBe("fail");
    expect(broken.summary).toContain("test/math.test.js > math clamp > works (fail)");
    expect(fixed.overall_result, fixed.summary).toBe("pass");
  }, 240_000);
});
