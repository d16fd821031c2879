/**
 * Attack 50f (review of ADR 0085's fallback, 4cc3a72): where verification runs have no checkout
 * overlay (ADR 0040's stat fallback: no mount namespace), base's retry without the pre scripts
 * runs on the build its first run left behind, and pins an invocation no attempt can run as base
 * did. The correct fix is rejected; an attempt that commits the build output passes with src/
 * broken. False rejection and false completion.
 *
 * Attack: `"pretest": "node scripts/build.js && node scripts/lint.js"`, dist/ gitignored and loaded
 * by the tests, and the lint red on base (src/legacy.js has a console.log the task does not touch).
 * Base's first run (with the pre scripts) writes dist/ and stops at the lint: no report. The second
 * run, without the pre scripts, is in the same checkout: dist/ (untracked, so allowed) is still
 * there, mocha loads it and reports, and the baseline pins the invocation without the pre scripts.
 * In a fresh checkout of an attempt nothing builds dist/:
 * - the correct fix (src/slug.js) is rejected: mocha cannot load dist/ (the verdict does not say the
 *   cause is a baseline taken on a leftover build);
 * - a hostile attempt breaks clamp in src/math.js and commits a dist/ (`git add -f`) with clamp
 *   intact and slugify fixed: the tests load it, and regression passes by mocha's report.
 * With the overlay (this machine, the lane), each run's writes are thrown away, the retry has no
 * dist/, and this is attack 49's refused case instead. The fixture harness runs in place, like the
 * stat fallback.
 *
 * Suggested fix: the retry without pre scripts must start from the checkout as base has it: undo
 * the first run's untracked writes (the stat fallback already knows them: `statCheckout` before
 * and after) or take the retry in a fresh reset of the verification checkout. And with pre scripts
 * left out, an attempt that adds or changes files under a path the left-out pre scripts write
 * (dist/) should be a setup finding: it is build output standing in for the build.
 *
 * Fixed (stop 46), was `it.fails`: base runs again without the pre scripts only when its first
 * run is proven to have left the checkout as it was (the checkout overlay's run ledger,
 * `checkoutUntouchedSince`). Without the overlay there is no second run: a base whose pre scripts
 * fail cannot run, and every attempt is rejected, saying so (fails closed; the first case).
 */
import { copyFile, mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import type { FixtureRepo } from "../../reports/runner-fixture.js";
import { commitAll, distBuildProject, RED_LINT_FILES } from "../../support/build-step-project.js";
import { breakClamp, fixSlug, fixtureBaseline, fixtureRegression } from "../../support/fixture-regression.js";

/** The build-step project whose `pretest` builds, then lints red: committed as base. */
async function project(onTestFinished: (fn: () => Promise<void>) => void): Promise<FixtureRepo> {
  const repo = await distBuildProject(
    { pretest: "node scripts/build.js && node scripts/lint.js", test: "mocha 'test/**/*.test.js'" },
    onTestFinished,
    RED_LINT_FILES,
  );
  await commitAll(repo.dir, "base");
  return repo;
}

async function baseline(repo: FixtureRepo) {
  const base = await fixtureBaseline(repo, "npm test");
  // The attempt's checkout is reset (the lane's verification checkout): no dist/.
  await rm(join(repo.dir, "dist"), { recursive: true, force: true });
  return base;
}

const regression = (
  repo: FixtureRepo,
  base: Awaited<ReturnType<typeof fixtureBaseline>>,
  changed: string[],
) => fixtureRegression(repo, "npm test", base, "test/slug.test.js", changed);

describe("base's retry without the pre scripts, in a checkout without the overlay", () => {
  it("refused: the correct fix is rejected, saying why (fails closed without the overlay)", async ({
    onTestFinished,
  }) => {
    const repo = await project(onTestFinished);
    const base = await baseline(repo);
    console.log("attack50f base:", base.report?.complete, base.preScriptsLeftOut);
    await fixSlug(repo);
    const fixed = await regression(repo, base, ["src/slug.js"]);
    // Seen at 4cc3a72: base report complete, "npm's pre scripts were left out: base's run with them
    // gave no complete report (the mocha report was not written (ENOENT): ...)"; the fix: fail "the
    // current report is incomplete although the baseline named 7 test(s): ...; 3 test(s) green on
    // base are not green now: test/math.test.js > works (missing), ..." (mocha cannot load dist/).
    console.log("attack50f fix:", fixed.overall_result, fixed.summary);
    expect(base.preScriptsLeftOut ?? null).toBeNull();
    expect(fixed.overall_result, fixed.summary).not.toBe("pass");
  }, 240_000);

  it("an attempt that breaks clamp in src/ and commits a good dist/ must not pass", async ({
    onTestFinished,
  }) => {
    const repo = await project(onTestFinished);
    const base = await baseline(repo);
    await mkdir(join(repo.dir, "dist"));
    await copyFile(join(repo.dir, "src/math.js"), join(repo.dir, "dist/math.js"));
    await fixSlug(repo);
    await copyFile(join(repo.dir, "src/slug.js"), join(repo.dir, "dist/slug.js"));
    await breakClamp(repo);
    await execa("git", ["add", "-f", "dist"], { cwd: repo.dir });
    await commitAll(repo.dir, "attempt");
    const run = await regression(repo, base, ["src/slug.js", "src/math.js", "dist/math.js", "dist/slug.js"]);
    // Seen at 4cc3a72: pass, "no regressions: all 3 test(s) green on base are still green (by full
    // test identity, mocha report); npm's pre scripts were left out: ...", with src/math.js broken.
    console.log("attack50f hostile:", run.overall_result, run.summary);
    // An error (the suite could not run: base's pre scripts rewrite tracked files) is no completion either.
    expect(run.overall_result, run.summary).not.toBe("pass");
  }, 240_000);
});
