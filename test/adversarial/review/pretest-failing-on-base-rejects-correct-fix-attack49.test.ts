/**
 * Attack 49d (review of ADR 0085): a pre script that uses npm's environment fails when devflow runs
 * it without npm, and every attempt is rejected, the correct fix too. False rejection, new with the
 * pre scripts (before 3b5514c they did not run and mocha's report judged the attempt).
 *
 * Attack (honest project): `"pretest": "$npm_execpath run build"`, the package-manager-neutral way
 * to call another script (it runs under npm, yarn and pnpm alike), `"build": "node scripts/build.js"`,
 * tests loading `dist/`. Under `npm test`, npm sets `npm_execpath` and the build runs.
 *
 * Why it fails: `withPreScripts` runs base's text as `sh -c '$npm_execpath run build' && mocha ...`
 * with none of npm's `npm_*` variables (ADR 0085 "not reproduced"), so the line is ` run build`:
 * "run: not found", exit 127. Base's report run has no report, the console fallback runs the same
 * pre script first and ends the same way, the baseline "was not found", and each attempt's run
 * errors: "test suite could not run: `npm test` was not found (exit 127)". The same happens to any
 * pre script that reads `npm_package_*`, `npm_config_*` or `npm_lifecycle_event` and exits on it.
 *
 * Suggested fix: run the pre scripts with the environment npm gives a script: at least
 * `npm_execpath` (npm's own cli path, or the package manager the command names),
 * `npm_lifecycle_event` (`pretest`, `pretest:unit`), `npm_package_name`/`npm_package_version`
 * and `npm_package_json`, from base's package.json; or run `npm run <pre script name>
 * --ignore-scripts=false` with base's package.json instead of its text. At least, when the pinned
 * pre scripts fail on base with "not found" (127), fall back to the runner alone (the behaviour
 * before ADR 0085) rather than reject every attempt.
 *
 * Same class, third case: a `pretest` that is red on base for a reason of its own (here a lint
 * step, `npm run lint && npm run build`, failing on a file the task does not touch). ADR 0085 says
 * so ("a pretest that fails stops the run, as under npm ... fails closed"), but before 3b5514c such
 * a project got mocha's report and the correct fix passed; now base is "red and results could not
 * be compared per test" and nothing completes. Suggested: when base's pre scripts fail, take the
 * baseline from the runner alone (no pre scripts, as before) and say so, or run the pre scripts'
 * build part only; a lint gate is not a test regression.
 *
 * Fourth case, where npm itself is green on base: base's `.npmrc` has `ignore-scripts=true` (a
 * common hardening against install scripts). npm then runs no pre or post script for `npm test`
 * (checked with npm 11: `npm test` prints only the test script's output), so the project's own
 * `npm test` is green on base while its stale `pretest` (the red lint) never runs. devflow runs it
 * anyway and rejects every attempt. Suggested: read `ignore-scripts` from base's .npmrc (the
 * project's, as pinned with the rest of the test setup) and pin no pre scripts when it is true.
 *
 * Fixed (stop 46), was `it.fails`: the pre scripts get the variables npm gives a script to call npm
 * again (`npm_execpath`, `npm_node_execpath`, `npm_lifecycle_event`), and no pre script is pinned
 * when base's `.npmrc` says `ignore-scripts=true`. Refused, as ADR 0085 says: a `pretest` red on
 * base whose build the tests need. The project's own `npm test` runs no test on base either (npm
 * stops at the red lint), and without the build the runner alone cannot load the tests, so there
 * is nothing to compare; every attempt is rejected, saying so.
 */
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import type { FixtureRepo } from "../../reports/runner-fixture.js";
import { distBuildProject, RED_LINT_FILES } from "../../support/build-step-project.js";
import { fixSlug, fixtureBaseline, fixtureRegression } from "../../support/fixture-regression.js";

/** The build-step project with a red lint and `pretest` as given. */
const builtProject = (
  pretest: string,
  onTestFinished: (fn: () => Promise<void>) => void,
  more: Record<string, string> = {},
  loadDist = true,
): Promise<FixtureRepo> =>
  distBuildProject(
    {
      pretest,
      lint: "node scripts/lint.js",
      build: "node scripts/build.js",
      test: "mocha 'test/**/*.test.js'",
    },
    onTestFinished,
    { ...RED_LINT_FILES, ...more },
    { loadDist },
  );

async function correctFix(
  pretest: string,
  onTestFinished: (fn: () => Promise<void>) => void,
  more: Record<string, string> = {},
  loadDist = true,
) {
  const repo = await builtProject(pretest, onTestFinished, more, loadDist);
  const base = await fixtureBaseline(repo, "npm test");
  await rm(join(repo.dir, "dist"), { recursive: true, force: true });
  await fixSlug(repo);
  const fixed = await fixtureRegression(repo, "npm test", base);
  return { base, fixed, repo };
}

describe("a pre script that uses npm's environment", () => {
  it("control: `pretest: npm run build` gets a report on base and the correct fix passes", async ({
    onTestFinished,
  }) => {
    const { base, fixed } = await correctFix("npm run build", onTestFinished);
    expect(base.report?.complete, base.error ?? "").toBe(true);
    expect(fixed.overall_result, fixed.summary).toBe("pass");
  }, 240_000);

  it("`pretest: $npm_execpath run build`: the correct fix passes", async ({ onTestFinished }) => {
    const { base, fixed } = await correctFix("$npm_execpath run build", onTestFinished);
    // Seen at 3b5514c: base ran false, error "`npm test` was not found (exit 127)"; the fix:
    // error "test suite could not run: `npm test` was not found (exit 127)".
    console.log("attack49d base:", base.ran, base.error, "| fix:", fixed.overall_result, fixed.summary);
    expect(fixed.overall_result, fixed.summary).toBe("pass");
  }, 240_000);

  it("refused: `pretest: npm run lint && npm run build`, lint red on base, the build the tests need never runs: nothing to compare", async ({
    onTestFinished,
  }) => {
    const { base, fixed } = await correctFix("npm run lint && npm run build", onTestFinished);
    // No report on base, with the pre scripts (the lint stops them) or without (no dist/).
    expect(base.report ?? null).toBeNull();
    expect(fixed.overall_result).not.toBe("pass");
    expect(fixed.summary).toBe("baseline was red and results could not be compared per test");
  }, 240_000);

  it("base's .npmrc has ignore-scripts=true, so npm never runs the red `pretest`: the correct fix passes", async ({
    onTestFinished,
  }) => {
    // Tests load src/ here: no build is needed, the pretest is only the (stale, red) lint.
    const { base, fixed, repo } = await correctFix(
      "node scripts/lint.js",
      onTestFinished,
      { ".npmrc": "ignore-scripts=true\n" },
      false,
    );
    // npm runs no pre script here, so devflow pins none (and has none to leave out).
    expect(base.invocation?.preScripts).toBeUndefined();
    expect(base.preScriptsLeftOut ?? null).toBeNull();
    // The project's own `npm test` with the fix: green (npm skips the pretest).
    const npm = await execa("npm", ["test"], { cwd: repo.dir, reject: false });
    expect(npm.exitCode, npm.all).toBe(0);
    expect(npm.stdout).not.toContain("lint:");
    // Seen at 3b5514c: base ran true, exit 1, no report ("lint: console.log in legacy.js");
    // the fix: fail "baseline was red and results could not be compared per test".
    console.log(
      "attack49d ignore-scripts base:",
      base.ran,
      base.exitCode,
      base.invocation?.preScripts,
      "| fix:",
      fixed.overall_result,
      fixed.summary,
    );
    expect(fixed.overall_result, fixed.summary).toBe("pass");
  }, 240_000);
});
