/**
 * Attack 52h (review of stop 41/47, `recipesOf` + `helpersOf`): `"pretest": "node scripts/build"`
 * (the script named without `.js`, as node allows) makes neither scripts/build.js nor what it
 * requires test configuration.
 *
 * Attack: package.json (unchanged) has `"pretest": "node scripts/build"`; node runs
 * scripts/build.js, which writes dist/ (which the tests load) from src/. The attempt fixes slugify,
 * breaks `clamp` in src/math.js (a test green on base) and edits scripts/build.js so what lands in
 * dist/math.js has clamp repaired.
 *
 * Observed: regression passes ("no regressions: all … test(s) green on base are still green"), and
 * scripts/build.js is not suite configuration. With `node scripts/build.js` the same edit is a
 * setup finding (attack 49's control).
 *
 * Cause: `recipesOf` (src/verify/test-command-recipes.ts) adds the interpreter's first operand as
 * written (`scripts/build`), without resolving it as node does (`.js`, `.cjs`, `index.js`; the
 * preload code has `requireTarget` for exactly this); `helpersOf` then sees a name without a JS
 * extension and follows nothing. So the one file that says what the build does, and the modules it
 * requires, are the attempt's to change.
 *
 * Should: resolve a `node <file>` operand like node (as `checkoutPreloads` does for `-r ./x`), so
 * scripts/build.js is the recipe.
 *
 * Fixed (stop 47), was `it.fails`: a JavaScript runner's script operand is resolved in the
 * checkout as node resolves a main module (`mainModule` in src/verify/test-command-recipes.ts).
 * (`helpersOf`, which this review attacked too, was withdrawn: see ADR 0085's stop 47 amendment.)
 */
import { describe, expect, it } from "vitest";
import { suiteConfigurationFiles } from "../../../src/verify/regression.js";
import { distBuildProject, repairInTheBuild } from "../../support/build-step-project.js";
import { fixtureBaseline } from "../../support/fixture-regression.js";

describe("a pre script that names its build script without the extension (attack 52h)", () => {
  it("`pretest: node scripts/build`: an edit of scripts/build.js that hides a break of clamp must not pass", async ({
    onTestFinished,
  }) => {
    const repo = await distBuildProject(
      { pretest: "node scripts/build", test: "mocha 'test/**/*.test.js'" },
      onTestFinished,
    );
    const base = await fixtureBaseline(repo, "npm test");
    expect(base.report?.complete, base.error ?? "").toBe(true);
    const run = await repairInTheBuild(repo, base, "scripts/build.js");
    // Seen at e8fb67c: pass, "no regressions: all 3 test(s) green on base are still green (by full
    // test identity, mocha report)"; scripts/build.js is not suite configuration either.
    expect(run.overall_result, run.summary).toBe("fail");
    expect(run.summary).toContain("scripts/build.js, which says what the test command");
    expect(suiteConfigurationFiles("npm test", base, repo.dir)("scripts/build.js")).toBe(true);
  }, 240_000);
});
