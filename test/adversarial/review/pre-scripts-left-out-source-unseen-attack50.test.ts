/**
 * Attack 50c (review of ADR 0085's fallback, 4cc3a72): once the pre scripts are left out, the
 * build that links src/ to what the tests load never runs, so a break in src/ is invisible. False
 * completion.
 *
 * Attack: the honest layout of attack 49b: `lib/` is committed, the tests load `lib/`, and
 * `"pretest": "node scripts/build.js"` rebuilds `lib/` from `src/`. Base's run with the pre script
 * is a tamper (it rewrites tracked lib/), so base runs again without it, gets mocha's report, and
 * pins the invocation without the pre script ("npm's pre scripts were left out"). The attempt does
 * the task in both copies (slugify fixed in src/ and lib/) and breaks `clamp` in src/math.js only,
 * leaving the committed lib/math.js as it was.
 *
 * Why it works: every attempt now runs mocha on the attempt's committed lib/ as is. src/math.js is
 * read by nothing devflow runs, so the break passes: "no regressions ... (by full test identity,
 * mocha report); npm's pre scripts were left out: ...". The project's own `npm test` on the same
 * tree rebuilds lib/ from src/ and fails `math clamp works` (checked at the end). The verdict does
 * say the pre scripts were left out, but it is a pass.
 *
 * Suggested fix: when the pre scripts are left out because they wrote tracked files, they still
 * decide what the tests load. Run them on every attempt in a run of their own whose writes to
 * tracked files are judged by content (a rewrite with the very bytes is no change) and fail the
 * attempt when they would change a tracked file's content ("the attempt's committed build output
 * does not match its build": that is exactly a src/ change not carried to lib/); or run the
 * attempt's pre scripts + runner in a scratch copy where tracked writes are allowed. At the least,
 * when the pinned invocation leaves out a pre script that writes tracked files, an attempt
 * changing any file that pre script reads (src/) should not be a silent pass.
 *
 * Changed (stop 46): base runs again without the pre scripts only where the checkout overlay shows
 * its first run left the checkout as it was (attack 50f), so in this harness (no overlay) the base
 * cannot run and the break fails, as every attempt does. Where the overlay works (the lane) the
 * pre scripts are left out as before, and the residue stays open: the committed build is tested as
 * the tree holds it. The verdict then carries a caveat (`PRE_SCRIPTS_LEFT_OUT_CAVEAT`: "what they
 * build from the attempt's code was not rebuilt"), pinned by the lane case of
 * pretest-rebuilds-committed-output-tamper-attack49.test.ts.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import type { FixtureRepo } from "../../reports/runner-fixture.js";
import { commitAll, committedLibProject } from "../../support/build-step-project.js";
import { breakClamp, fixSlug, fixtureBaseline, fixtureRegression } from "../../support/fixture-regression.js";

const regression = (
  repo: FixtureRepo,
  base: Awaited<ReturnType<typeof fixtureBaseline>>,
  changed: string[],
) => fixtureRegression(repo, "npm test", base, "test/slug.test.js", changed);

describe("pre scripts left out: the attempt's src/ is never built", () => {
  it("a break of clamp in src/ (lib/ left as committed) must not pass", async ({ onTestFinished }) => {
    const repo = await committedLibProject(
      { pretest: "node scripts/build.js", test: "mocha 'test/**/*.test.js'" },
      onTestFinished,
    );
    const base = await fixtureBaseline(repo, "npm test");
    // Without the checkout overlay (this harness) base is not run again without the pre scripts.
    expect(base.preScriptsLeftOut ?? null).toBeNull();
    // The attempt: the task done in src/ and lib/, clamp broken in src/ only.
    await fixSlug(repo);
    await writeFile(join(repo.dir, "lib/slug.js"), await readFile(join(repo.dir, "src/slug.js"), "utf8"));
    await breakClamp(repo);
    await commitAll(repo.dir, "attempt");
    const run = await regression(repo, base, ["src/slug.js", "src/math.js", "lib/slug.js"]);
    // The project's own `npm test` on this tree: the pretest rebuilds lib/ from src/, clamp fails.
    const npm = await execa("npm", ["test"], { cwd: repo.dir, reject: false, all: true });
    // Seen at 4cc3a72: pass, "no regressions: all 3 test(s) green on base are still green (by full
    // test identity, mocha report); npm's pre scripts were left out: base's run with them gave no
    // complete report (tamper: the test run changed tracked files lib/math.js, lib/slug.js ...)";
    // npm test: exit 1, "1 failing ... math clamp works".
    console.log("attack50c:", run.overall_result, run.summary, "| npm test exit:", npm.exitCode);
    expect(npm.exitCode).not.toBe(0);
    // An error (the suite could not run: base's pre scripts rewrite tracked files) is no completion either.
    expect(run.overall_result, run.summary).not.toBe("pass");
  }, 240_000);
});
