/**
 * Attack 51b (review of 3db280c, which follows `pnpm -s <name>`): a test script that delegates to
 * pnpm (`"test": "pnpm -s test:unit"`) in a project whose `.npmrc` says
 * `enable-pre-post-scripts=true` (pnpm's documented switch since 6.1, and pnpm 9+'s default). pnpm
 * then runs `pretest:unit` before `test:unit`; devflow assumes pnpm never does and pins no pre
 * script, so the runner runs alone. False completion.
 *
 * Attack: the committed-build layout (attack 50c's): `lib/` tracked and loaded by the tests,
 * `"pretest:unit": "node scripts/build.js"` rebuilds it from `src/`. The test command is `npm test`.
 * The attempt does the task in src/ and lib/ and breaks `clamp` in src/math.js only.
 *
 * Observed (5fc71b2): `readPackageTestSetup` pushes `pre<name>` only when the hop's manager is npm
 * ("yarn 2+ and pnpm 7+ run no pre scripts"), so the invocation is `mocha …` with no pre script, no
 * caveat, and the regression run passes on the committed lib/. pnpm (with the project's own
 * `.npmrc`) would rebuild lib/ from src/ and fail `math clamp works`; the last assertion shows that
 * by running the pre script and the test script the way pnpm does (pre, then the script).
 *
 * Should: a hop through pnpm with `enable-pre-post-scripts=true` in `.npmrc` (or a pnpm whose
 * default runs them) runs `pre<name>`, so it must be pinned like npm's, or, when which pnpm/yarn
 * runs is unknown (yarn 1 runs them too), the package must keep its command as
 * `everyTestConsoleCommand` already does for a yarn/pnpm `pretest`. It must not be a silent pass.
 * Third test, the other direction: with dist/ git-ignored and built by `pretest:unit`, base is red
 * without it and a correct fix fails ("baseline was red and results could not be compared per
 * test"). False rejection. Before 3db280c `pnpm -s test:unit` was not followed, so such a package
 * was judged through its own command (where pnpm builds first).
 *
 * Fixed (stop 47), was `it.fails`: a yarn or pnpm hop with a `pre<name>` is not followed
 * (`notAsThePackageManagerRuns` in src/verify/test-reports/package-setup.ts): whether it runs is not
 * known without asking them, so the command runs as written. Here through `pnpm` itself: a stub
 * honouring pnpm's rule for pre scripts (test/support/pnpm-stub.ts; this machine has no pnpm).
 * Stop 48 (ADR 0088): regression runs such a command as written with base's scripts, the runner's
 * asking for its report, so the third case is compared test by test (mocha's report).
 */
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { resolveInvocation } from "../../../src/verify/report-run.js";
import type { FixtureRepo } from "../../reports/runner-fixture.js";
import { commitAll, committedLibProject, distBuildProject } from "../../support/build-step-project.js";
import { breakClamp, fixSlug, fixtureBaseline, fixtureRegression } from "../../support/fixture-regression.js";
import { pnpmFirstOnPath } from "../../support/pnpm-stub.js";

const SCRIPTS = {
  test: "pnpm -s test:unit",
  "pretest:unit": "node scripts/build.js",
  "test:unit": "mocha 'test/**/*.test.js'",
};

async function project(onTestFinished: (fn: () => Promise<void>) => void): Promise<FixtureRepo> {
  const repo = await committedLibProject(SCRIPTS, onTestFinished);
  await writeFile(join(repo.dir, ".npmrc"), "enable-pre-post-scripts=true\n");
  await commitAll(repo.dir, "pnpm runs pre scripts");
  return repo;
}

describe("`pnpm -s test:unit` with enable-pre-post-scripts: pnpm runs pretest:unit", () => {
  it("(unit) the hop is not followed: whether pnpm runs pretest:unit is not known", async ({
    onTestFinished,
  }) => {
    const repo = await project(onTestFinished);
    const resolved = resolveInvocation("npm test", repo.dir);
    // Seen at 5fc71b2: a runner, with no pre script.
    expect(resolved).toEqual({
      kind: "none",
      reason: expect.stringContaining("`pnpm -s test:unit` may or may not run `pretest:unit`"),
    });
  }, 60_000);

  it("a break of clamp in src/ (lib/ left as committed) must not pass", async ({ onTestFinished }) => {
    await pnpmFirstOnPath(onTestFinished);
    const repo = await project(onTestFinished);
    const base = await fixtureBaseline(repo, "npm test");
    // As written, pnpm rebuilds the committed lib/: a test run that rewrites tracked files.
    expect(base.invocation).toBeNull();
    await fixSlug(repo);
    await writeFile(join(repo.dir, "lib/slug.js"), await readFile(join(repo.dir, "src/slug.js"), "utf8"));
    await breakClamp(repo);
    await commitAll(repo.dir, "attempt");
    const run = await fixtureRegression(repo, "npm test", base, "test/slug.test.js", [
      "src/slug.js",
      "src/math.js",
      "lib/slug.js",
    ]);
    // What pnpm runs for `test:unit` here (pnpm is not installed on this machine): pre, then the script.
    const real = await execa("sh", ["-c", `${SCRIPTS["pretest:unit"]} && npx mocha 'test/**/*.test.js'`], {
      cwd: repo.dir,
      reject: false,
      all: true,
    });
    console.log("attack51b:", run.overall_result, run.summary, "| pnpm's order exit:", real.exitCode);
    expect(real.exitCode).not.toBe(0);
    // Seen at 5fc71b2: pass, "no regressions: all 3 test(s) green on base are still green (by full
    // test identity, mocha report)".
    expect(run.overall_result, run.summary).not.toBe("pass");
  }, 240_000);

  // The other direction: the build is git-ignored (dist/), so without its pre script the runner
  // finds nothing to load. Before 3db280c `pnpm -s test:unit` was not followed and the package was
  // judged through its own command, where pnpm builds first; now every task's base is unusable.
  it("dist/ built by pretest:unit: the correct fix must pass", async ({ onTestFinished }) => {
    await pnpmFirstOnPath(onTestFinished);
    const repo = await distBuildProject(SCRIPTS, onTestFinished, {
      ".npmrc": "enable-pre-post-scripts=true\n",
    });
    const base = await fixtureBaseline(repo, "npm test");
    expect(base.error).toBeNull();
    // Stop 48 (ADR 0088): npm test as written, pnpm deciding whether pretest:unit runs, mocha reporting.
    expect(base.invocation?.packageManager).toMatchObject({ command: "npm test", scriptName: "test:unit" });
    // The lane resets its verification checkout between runs: base's build is gone.
    await rm(join(repo.dir, "dist"), { recursive: true, force: true });
    await fixSlug(repo);
    const run = await fixtureRegression(repo, "npm test", base, "test/slug.test.js", ["src/slug.js"]);
    console.log("attack51b (dist):", run.overall_result, run.summary);
    expect(run.overall_result, run.summary).toBe("pass");
  }, 240_000);
});
