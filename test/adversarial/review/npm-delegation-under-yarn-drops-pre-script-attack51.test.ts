/**
 * Attack 51a (review of 3db280c/5fc71b2, `delegatedScript`): a test script that delegates to npm
 * (`"test": "npm run -s test:unit"`) under a project whose test command is `yarn test` or
 * `pnpm test`. The inner `npm run` always runs `pretest:unit` (npm runs pre scripts whoever started
 * it), but devflow pins no pre script at all, so the runner runs alone. False completion.
 *
 * Attack: the honest "committed build" layout (attack 50c's): `lib/` is tracked and loaded by the
 * tests; `"pretest:unit": "node scripts/build.js"` rebuilds `lib/` from `src/`. The test command is
 * `yarn test`. The attempt does the task in src/ and lib/ and breaks `clamp` in src/math.js only.
 *
 * Observed (5fc71b2): `readPackageTestSetup` follows the delegation and records
 * `npmPreScripts: [pretest:unit]` (its manager is npm), but `resolveInvocation` then drops every
 * pre script because the *outer* command is not npm (`NPM_COMMAND.test(command)`), so the pinned
 * invocation is `mocha …` alone with no pre script and no caveat (`everyTestConsoleCommand`'s
 * yarn/pnpm guard only looks at `pretest`/`posttest`, not at `pre<name>` of a delegation). The
 * regression run tests the committed lib/ as it is: pass. The script yarn would run
 * (`npm run -s test:unit`) rebuilds lib/ and fails `math clamp works`.
 *
 * Should: whether `pre<name>` runs depends on the manager of *that* hop (npm here: always), not on
 * the outer command; `pretest` alone depends on the outer one. So `pretest:unit` must be pinned
 * (or the package kept on its command, as for yarn's `pretest`), and the break must not pass.
 * The other direction (third test): with the build git-ignored (dist/), the runner alone finds
 * nothing to load, base is red ("baseline was red and results could not be compared per test") and
 * every correct fix is rejected, while the script yarn runs is green. False rejection.
 * (The same split applies to `"test": "pnpm -s test:unit"`: pnpm 9+ runs pre scripts by default.)
 * Before 3db280c the same held for the `npm run test:unit` spelling; 3db280c extends it to the
 * `-s`/`--silent` spellings that are the common ones.
 *
 * Fixed (stop 47), was `it.fails`: `pre<name>` of an npm hop is pinned whoever started the script;
 * only `pretest` depends on the outer command, and a yarn or pnpm command with one now runs as
 * written (`notAsWritten` in src/verify/report-run.ts). The committed-lib/ case then meets ADR
 * 0085's residue: base's build rewrites tracked files, and without the checkout overlay (this
 * harness) base cannot run, so no attempt passes.
 */
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { resolveInvocation } from "../../../src/verify/report-run.js";
import { commitAll, committedLibProject, distBuildProject } from "../../support/build-step-project.js";
import { breakClamp, fixSlug, fixtureBaseline, fixtureRegression } from "../../support/fixture-regression.js";

const SCRIPTS = {
  test: "npm run -s test:unit",
  "pretest:unit": "node scripts/build.js",
  "test:unit": "mocha 'test/**/*.test.js'",
};

describe("`npm run -s test:unit` under `yarn test`: npm's pre<name> still runs", () => {
  it("(unit) the invocation pins pretest:unit, which the inner npm runs", async ({ onTestFinished }) => {
    const repo = await committedLibProject(SCRIPTS, onTestFinished);
    for (const command of ["yarn test", "pnpm test"]) {
      const resolved = resolveInvocation(command, repo.dir);
      expect(resolved.kind).toBe("runner");
      // Seen at 5fc71b2: preScripts undefined for both (npm test: [pretest:unit]).
      expect(resolved.kind === "runner" ? resolved.invocation.preScripts : null, command).toEqual([
        { name: "pretest:unit", script: "node scripts/build.js" },
      ]);
    }
  }, 60_000);

  it("a break of clamp in src/ (lib/ left as committed) must not pass", async ({ onTestFinished }) => {
    const repo = await committedLibProject(SCRIPTS, onTestFinished);
    const base = await fixtureBaseline(repo, "yarn test");
    // pretest:unit runs (test 1 pins it) and rewrites the committed lib/: base cannot run here.
    expect(base.error).toMatch(/^tamper: the test run changed tracked files lib\/math\.js/);
    // The attempt: slugify fixed in src/ and lib/, clamp broken in src/ only.
    await fixSlug(repo);
    await writeFile(join(repo.dir, "lib/slug.js"), await readFile(join(repo.dir, "src/slug.js"), "utf8"));
    await breakClamp(repo);
    await commitAll(repo.dir, "attempt");
    const run = await fixtureRegression(repo, "yarn test", base, "test/slug.test.js", [
      "src/slug.js",
      "src/math.js",
      "lib/slug.js",
    ]);
    // What `yarn test` runs: its test script, in a shell. npm runs pretest:unit, lib/ is rebuilt.
    const real = await execa("sh", ["-c", SCRIPTS.test], { cwd: repo.dir, reject: false, all: true });
    console.log("attack51a:", run.overall_result, run.summary, "| script exit:", real.exitCode);
    expect(real.exitCode).not.toBe(0);
    expect(real.all).toContain("clamp");
    // Seen at 5fc71b2: pass, "no regressions: all 3 test(s) green on base are still green (by full
    // test identity, mocha report)".
    expect(run.overall_result, run.summary).not.toBe("pass");
  }, 240_000);

  // The other direction: the build is git-ignored (dist/): without pretest:unit the runner finds
  // nothing to load, base is red, and every correct fix is rejected. False rejection.
  it("dist/ built by pretest:unit under `yarn test`: the correct fix must pass", async ({
    onTestFinished,
  }) => {
    const repo = await distBuildProject(SCRIPTS, onTestFinished);
    const base = await fixtureBaseline(repo, "yarn test");
    expect(base.report?.complete, base.error ?? "").toBe(true);
    // The lane resets its verification checkout between runs: base's build is gone.
    await rm(join(repo.dir, "dist"), { recursive: true, force: true });
    await fixSlug(repo);
    const run = await fixtureRegression(repo, "yarn test", base, "test/slug.test.js", ["src/slug.js"]);
    // What `yarn test` runs on the same tree: green but for the seam's skipped test.
    const real = await execa("sh", ["-c", SCRIPTS.test], { cwd: repo.dir, reject: false, all: true });
    console.log("attack51a (dist):", run.overall_result, run.summary, "| script exit:", real.exitCode);
    expect(real.exitCode).toBe(0);
    // Seen at 5fc71b2: fail, "baseline was red and results could not be compared per test".
    expect(run.overall_result, run.summary).toBe("pass");
  }, 240_000);
});
