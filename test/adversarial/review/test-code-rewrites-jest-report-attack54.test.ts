/**
 * Attack 54e (review of af1237b; the hole is older than ADR 0088, which makes it easier):
 * FALSE COMPLETION. jest's JSON report is written by jest's parent process into a directory the
 * run may write (`<log>.out/`, exposed writable in the namespace), and devflow believes it as
 * written: there is no ledger for jest as there is for node:test (ADR 0048). Test code is the
 * attempt's to change (ADR 0019), and it can find the report: since ADR 0088 it is spelled out in
 * package.json for the whole run (`scripts.test` holds `--outputFile='<report>'`), and without
 * ADR 0088 it is in jest's command line (/proc/<pid>/cmdline).
 *
 * The attempt fixes slugify, breaks clamp, and adds a NEW test file (test/zz-env.test.js, one
 * passing test) that starts a detached watcher: it waits for jest to write the report, then marks
 * every failed test "passed" and exits, before jest, the package manager and the shell have
 * exited (so nothing is left for devflow to end).
 *
 * Observed: regression passes by full test identity through `pnpm test` (ADR 0088's run), and
 * through plain `npm test` (devflow's own pinned run, the report path read from /proc).
 * Control: the break without the watcher fails naming clamp.
 * Left open (stop 48): the watcher races the run's end, so each case tries up to three runs.
 * Should: a report a process of the run can write is not evidence by itself.
 *
 * Fixed (stop 49, ADR 0089), was `it.fails`: jest's (and vitest's) report no longer goes to a
 * file. devflow's reporter in the runner (src/verify/test-reports/jest-channel-reporter.cjs)
 * connects to a Unix socket devflow listens on for the run when jest starts and sends the results
 * there; devflow accepts exactly one connection and writes what came over it to the report path
 * after the run, over whatever the run left there. The watcher's two routes now:
 * - the report file: it writes a forged report (every test passing, made from a real jest run of
 *   the tree without the break) where jest's report used to go (an attacker knowing devflow's
 *   layout, or reading the mount table in a mount namespace); devflow's write replaces it;
 * - the channel: it reads the socket's address from its own environment (inherited from jest) and
 *   sends the forged report itself; a second connection fails the run as tampering, by name.
 * Mutations, each turning a case red: devflow keeping a report file the run wrote (the file case);
 * the channel taking the last of several connections (the channel case).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { FixtureRepo } from "../../reports/runner-fixture.js";
import { commitAll } from "../../support/build-step-project.js";
import {
  breakClamp,
  fixSlug,
  fixtureBaseline,
  fixtureProject,
  fixtureRegression,
} from "../../support/fixture-regression.js";
import { detachedAttackerTest, runnersOwnReport } from "../../support/forged-jest-report.js";
import { pnpmFirstOnPath } from "../../support/pnpm-stub.js";
import { reportWatcher } from "../../support/report-attackers.js";

const CHANGED = ["src/slug.js", "src/math.js", "test/zz-env.test.js"];

async function project(scripts: Record<string, string>, onTestFinished: (fn: () => Promise<void>) => void) {
  const repo = await fixtureProject(
    "jest",
    {
      "package.json": JSON.stringify({
        name: "fixture-jest",
        private: true,
        scripts,
        devDependencies: { jest: "29.7.0" },
      }),
      "scripts/check.js": 'console.log("check ok");\n',
    },
    onTestFinished,
  );
  await commitAll(repo.dir, "scripts");
  return repo;
}

type Runner = "jest" | "vitest";

/**
 * The attempt: slugify fixed, clamp broken, and the new test starting the watcher. The forged
 * report is the runner's own for the same files without the break: every test passing.
 */
async function hostileAttempt(repo: FixtureRepo, route: "file" | "channel", runner: Runner = "jest") {
  await fixSlug(repo);
  const forged = runnersOwnReport(repo.dir, repo.outside, runner);
  expect(JSON.parse(forged).numFailedTests).toBe(0);
  await breakClamp(repo);
  const source = reportWatcher(forged, repo.dir, route, [join(repo.outside, "regression.log.out")]);
  writeFileSync(join(repo.dir, "test/zz-env.test.js"), detachedAttackerTest(source, runner));
}

describe("attack 54e: test code rewrites the jest report after jest wrote it", () => {
  it("through `pnpm test` (ADR 0088's run): a forged report where the report file went does not count", async ({
    onTestFinished,
  }) => {
    await pnpmFirstOnPath(onTestFinished);
    const repo = await project({ pretest: "node scripts/check.js", test: "jest" }, onTestFinished);
    const base = await fixtureBaseline(repo, "pnpm test");
    expect(base.error, base.error ?? "").toBeNull();
    expect(base.invocation?.packageManager?.command).toBe("pnpm test");
    await hostileAttempt(repo, "file");
    const run = await fixtureRegression(repo, "pnpm test", base, "test/slug.test.js", CHANGED);
    console.log("attack54e (file):", run.overall_result, run.summary);
    expect(run.overall_result, run.summary).toBe("fail");
    expect(run.summary).toContain("test/math.test.js > math > clamp > works (fail)");
    expect(run.summary, "the watcher attacked").not.toContain("zz-env");
  }, 240_000);

  it("through devflow's own pinned `npm test` run: a forged report sent over devflow's channel is tampering", async ({
    onTestFinished,
  }) => {
    const repo = await project({ test: "jest" }, onTestFinished);
    const base = await fixtureBaseline(repo, "npm test");
    expect(base.error, base.error ?? "").toBeNull();
    expect(base.invocation?.packageManager).toBeUndefined();
    await hostileAttempt(repo, "channel");
    const run = await fixtureRegression(repo, "npm test", base, "test/slug.test.js", CHANGED);
    console.log("attack54e (channel):", run.overall_result, run.summary);
    // A tamper finding: the suite could not be judged (an error verdict, never a pass).
    expect(run.overall_result, run.summary).toBe("error");
    expect(run.summary).toContain("2 connections reached devflow's report channel");
    expect(run.summary, "the watcher attacked").not.toContain("zz-env");
  }, 240_000);

  it("(control) the break without the watcher fails naming clamp", async ({ onTestFinished }) => {
    await pnpmFirstOnPath(onTestFinished);
    const repo = await project({ pretest: "node scripts/check.js", test: "jest" }, onTestFinished);
    const base = await fixtureBaseline(repo, "pnpm test");
    await fixSlug(repo);
    await breakClamp(repo);
    const run = await fixtureRegression(repo, "pnpm test", base);
    expect(run.overall_result).toBe("fail");
    expect(run.summary).toContain("clamp");
  }, 240_000);
});

describe("attack 54e's watcher against vitest's report (ADR 0089: vitest's comes over the channel too)", () => {
  it.for(["file", "channel"] as const)(
    "%s route: a broken clamp does not pass",
    { timeout: 240_000 },
    async (route, { onTestFinished }) => {
      const repo = await fixtureProject("vitest", {}, onTestFinished);
      const base = await fixtureBaseline(repo, "npm test");
      expect(base.error, base.error ?? "").toBeNull();
      await hostileAttempt(repo, route, "vitest");
      const run = await fixtureRegression(repo, "npm test", base, "test/slug.test.js", CHANGED);
      console.log(`attack54e (vitest, ${route}):`, run.overall_result, run.summary);
      expect(run.overall_result, run.summary).toBe(route === "file" ? "fail" : "error");
      expect(run.summary).toContain(
        route === "file"
          ? "test/math.test.js > math > clamp > works (fail)"
          : "2 connections reached devflow's report channel",
      );
      expect(run.summary, "the watcher attacked").not.toContain("zz-env");
    },
  );
});
