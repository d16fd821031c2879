/**
 * Attack 53a (review of 8921791): FALSE REJECTION. A jest project run with `pnpm test` that has a
 * `pretest` (here a harmless check) is now never resolved to a runner (`notAsWritten` in
 * src/verify/report-run.ts: "may or may not run `pretest`"), so base and every attempt are judged
 * from `pnpm test`'s console as written. jest with more than one test file prints no line per
 * passing test (only `PASS <file>` and `● suite › test` for failures), so `parseTestTally` finds
 * nothing on base; base is red (the seam's test fails there, as for every task), and `compare` says
 * "baseline was red and results could not be compared per test" for EVERY attempt, the correct fix
 * included. Before 8921791 the same package got a jest report (runner resolved, pretest left out).
 *
 * Observed: the correct fix (slug fixed, clamp intact) fails regression.
 * Should: a correct fix passes (e.g. the console run gets jest's `--verbose`, or the runner's
 * report is still asked for with the script as pnpm runs it); a break still fails (control: it
 * does now, but only because every attempt fails, with the same "baseline was red" summary).
 * The same for any other route onto the console as written that 8921791 added: a
 * `"test": "pnpm -s unit"` hop with `preunit`, or `$npm_…` in the script (`jest
 * --testTimeout=$npm_package_config_timeout` under `npm test`: seen, same summary, both verdicts).
 *
 * Stop 47: the `$npm_…` route is closed (the script is pinned again and gets npm's variables,
 * `npmScriptEnv`). The `pretest` under `pnpm test`/`yarn test` route and a yarn or pnpm hop with a
 * `pre<name>` stay: which of those runs is not known without asking that package manager, and the
 * console path they take cannot compare jest's tests. Left open (ADR 0085's stop 47 amendment).
 *
 * Fixed (stop 48), was `it.fails`: regression resolves such a command to a run the package
 * manager starts (ADR 0088): `pnpm test` as written, package.json's scripts as on base with the
 * runner's asking for its report, so pnpm decides whether `pretest` runs and jest still gives its
 * report. resolveInvocation without that option (the seam's) still lands on the console path.
 */
import { describe, expect, it } from "vitest";
import { resolveInvocation } from "../../../src/verify/report-run.js";
import { commitAll } from "../../support/build-step-project.js";
import {
  breakClamp,
  fixSlug,
  fixtureBaseline,
  fixtureProject,
  fixtureRegression,
} from "../../support/fixture-regression.js";
import { pnpmFirstOnPath } from "../../support/pnpm-stub.js";

const PACKAGE_JSON = JSON.stringify({
  name: "fixture-jest",
  private: true,
  scripts: { pretest: "node scripts/check.js", test: "jest" },
  devDependencies: { jest: "29.7.0" },
});

async function project(onTestFinished: (fn: () => Promise<void>) => void) {
  const repo = await fixtureProject(
    "jest",
    { "package.json": PACKAGE_JSON, "scripts/check.js": 'console.log("check ok");\n' },
    onTestFinished,
  );
  await commitAll(repo.dir, "pretest check");
  return repo;
}

describe("jest under `pnpm test` with a pretest: the package manager runs it, jest reports", () => {
  it("(setup) lands on the console path", async ({ onTestFinished }) => {
    const repo = await project(onTestFinished);
    expect(resolveInvocation("pnpm test", repo.dir)).toMatchObject({ kind: "none" });
  }, 60_000);

  it("the correct fix must pass", async ({ onTestFinished }) => {
    await pnpmFirstOnPath(onTestFinished);
    const repo = await project(onTestFinished);
    const base = await fixtureBaseline(repo, "pnpm test");
    expect(base.error).toBeNull();
    expect(base.invocation?.packageManager?.command).toBe("pnpm test");
    await fixSlug(repo);
    await commitAll(repo.dir, "fix");
    const run = await fixtureRegression(repo, "pnpm test", base, "test/slug.test.js", ["src/slug.js"]);
    console.log("attack53a fixed:", run.overall_result, run.summary, base.tests);
    expect(run.overall_result, run.summary).toBe("pass");
  }, 240_000);

  it("(control) a break of clamp fails", async ({ onTestFinished }) => {
    await pnpmFirstOnPath(onTestFinished);
    const repo = await project(onTestFinished);
    const base = await fixtureBaseline(repo, "pnpm test");
    await fixSlug(repo);
    await breakClamp(repo);
    await commitAll(repo.dir, "attempt");
    const run = await fixtureRegression(repo, "pnpm test", base);
    console.log("attack53a broken:", run.overall_result, run.summary);
    expect(run.overall_result).toBe("fail");
  }, 240_000);
});
