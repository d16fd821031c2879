/**
 * Regression: a test script that writes the runner's JSON results to a file of its own (`jest --json
 * --outputFile=results.json`, `vitest run --reporter=json --outputFile=results.json`, common for a
 * CI upload), with real jest 29 and vitest 4.
 *
 * Cause (found in stop 46): devflow adds its own report flags right after the runner's invocation,
 * so the script's `--outputFile` came later and won. devflow's report was never written, base was
 * judged from a console that names no test (the JSON went to the project's file), and every
 * attempt was rejected: "baseline was red and results could not be compared per test". Fix: the
 * script's own `--outputFile` (vitest: the bare one and `.json`'s) is taken out of the runner's
 * arguments for devflow's report runs (`optionWithValue` + `withoutOwn` in script-rewrite.ts).
 */
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  JEST_CHANNEL_REPORTER,
  JEST_REPORTERS_END,
  jestAdapter,
} from "../../src/verify/test-reports/jest.js";
import { VITEST_CHANNEL_REPORTER, vitestAdapter } from "../../src/verify/test-reports/vitest.js";
import { brokenThenFixed, fixtureBaseline, fixtureProject } from "../support/fixture-regression.js";

const CASES = [
  { runner: "jest", test: "jest --json --outputFile=results.json", module: false },
  { runner: "vitest", test: "vitest run --reporter=json --outputFile=results.json", module: true },
] as const;

describe("a script that writes the runner's JSON to its own file", () => {
  it.for(CASES)(
    "$test: judged by devflow's report, a break of clamp fails by name, the fix passes",
    { timeout: 240_000 },
    async ({ runner, test, module }, { onTestFinished }) => {
      const pkg = {
        name: `fixture-${runner}`,
        private: true,
        ...(module ? { type: "module" } : {}),
        scripts: { test },
      };
      const repo = await fixtureProject(runner, { "package.json": JSON.stringify(pkg) }, onTestFinished);
      const base = await fixtureBaseline(repo, "npm test");
      expect(base.report?.complete, base.error ?? "").toBe(true);
      // The lane resets its checkout between runs: the project's own file from base's run is gone.
      const reset = () => rm(join(repo.dir, "results.json"), { force: true });
      const { broken, fixed } = await brokenThenFixed(repo, "npm test", base, reset);
      expect(broken.overall_result).toBe("fail");
      expect(broken.summary).toContain("test/math.test.js > math > clamp > works (fail)");
      expect(fixed.overall_result, fixed.summary).toBe("pass");
    },
  );

  it("takes out only the script's own output file for devflow's report, quoted or not", () => {
    const command = (adapter: typeof jestAdapter, script: string) => {
      const request = adapter.command(script, "/r.json");
      return request.kind === "report_file" ? request.command : request.reason;
    };
    // jest's and vitest's reports come over devflow's channel (ADR 0089): the script's own file
    // still goes, or the runner would write it into the checkout.
    const reporters = `--reporters=default --reporters='${JEST_CHANNEL_REPORTER}' --testResultsProcessor='${JEST_REPORTERS_END}'`;
    expect(command(jestAdapter, `jest --outputFile 'out dir/r.json' --json test/ && echo done`)).toBe(
      `jest ${reporters} --json test/ && echo done`,
    );
    expect(command(jestAdapter, `npx jest -o --outputFile="a b.json"`)).toBe(`npx jest ${reporters} -o`);
    // jest's yargs takes the kebab-case spelling too.
    expect(
      command(jestAdapter, "jest --output-file=r.json --test-results-processor=jest-sonar-reporter test/"),
    ).toBe(`jest ${reporters} test/`);
    expect(
      command(vitestAdapter, "vitest run --reporter=junit --outputFile.junit=j.xml --outputFile.json r.json"),
    ).toBe(
      `vitest run --run --reporter=default --reporter='${VITEST_CHANNEL_REPORTER}' --reporter=junit --outputFile.junit=j.xml`,
    );
  });
});
