/**
 * Attack 53e (review of 8921791): FALSE REJECTION. A vitest project whose test script reads npm's
 * environment (`vitest run --testTimeout=$npm_package_config_timeout`, the value in package.json's
 * `config`) is now never resolved to a runner (`notAsThePackageManagerRuns`, src/verify/
 * test-reports/package-setup.ts): base and every attempt are judged from `npm test`'s console as
 * written. vitest's default console lists the tests of a file only when that file fails; a green
 * file is one line (`✓ test/slug.test.js (4 tests | 1 skipped)`). On base the seam's file fails, so
 * its green tests are named (`works`, twice); after the correct fix the file is green and they are
 * not: `comparePerTest` says "works (2 of the 2 tests of that name green on base) (now missing)".
 * Every correct fix of such a project is rejected. (The same for `pnpm test` with a `pretest`, and
 * a `pnpm -s <name>` hop with `pre<name>`; jest's console: attack 53a.) Before 8921791 the script
 * was pinned and run with vitest's JSON report.
 *
 * Observed: the correct fix fails regression. Should: pass; the break still fails (control, which
 * passes now).
 *
 * Fixed (stop 47), was `it.fails`: the script is pinned again and run with npm's variables (`npmEnv`, `npmScriptEnv`), so vitest's JSON report judges it.
 */
import { describe, expect, it } from "vitest";
import { resolveInvocation } from "../../../src/verify/report-run.js";
import { commitAll } from "../../support/build-step-project.js";
import { brokenThenFixed, fixtureBaseline, fixtureProject } from "../../support/fixture-regression.js";

const PACKAGE_JSON = JSON.stringify({
  name: "fixture-vitest",
  private: true,
  type: "module",
  config: { timeout: "5000" },
  scripts: { test: "vitest run --testTimeout=$npm_package_config_timeout" },
  devDependencies: { vitest: "4.1.12" },
});

describe("vitest reading `$npm_package_config_timeout`: judged from vitest's console", () => {
  it("the correct fix must pass, and a break of clamp must fail", async ({ onTestFinished }) => {
    const repo = await fixtureProject("vitest", { "package.json": PACKAGE_JSON }, onTestFinished);
    await commitAll(repo.dir, "base");
    expect(resolveInvocation("npm test", repo.dir)).toMatchObject({ kind: "runner" });
    const base = await fixtureBaseline(repo, "npm test");
    expect(base.error).toBeNull();
    expect(base.invocation?.npmEnv).toBeDefined();
    const { broken, fixed } = await brokenThenFixed(repo, "npm test", base);
    console.log(
      "attack53e:",
      `broken: ${broken.overall_result} ${broken.summary}`,
      `| fixed: ${fixed.overall_result} ${fixed.summary}`,
    );
    expect(broken.overall_result, broken.summary).toBe("fail");
    expect(fixed.overall_result, fixed.summary).toBe("pass");
  }, 240_000);
});
