/**
 * Attack 50b (review of the attack-49 fix, 4cc3a72): `npm run -s build` in `pretest` is not
 * followed, so attack 49a (the attempt repairs its break in the build script) is open again for
 * that spelling. False completion.
 *
 * Attack: package.json (unchanged) has `"pretest": "npm run -s build"` (`-s`/`--silent` before the
 * name is a very common spelling: it keeps npm's `> build` banner out of the test output),
 * `"build": "node scripts/build.js"`, and the tests load dist/, which the build copies from src/.
 * The attempt fixes slugify, breaks `clamp` in src/math.js (green on base), and edits
 * scripts/build.js so the copy it writes to dist/ has clamp repaired. devflow runs base's pinned
 * pre script `npm run -s build`; npm runs the attempt's scripts/build.js, the tests load the
 * repaired dist/math.js, and regression passes by mocha's report.
 *
 * Why it works: `scriptRunBy` (src/verify/test-command-names.ts) takes the first word after
 * `npm run` as the script's name (`NPM_RUN = /…(?:run|run-script)\s+([\w:.-]+)/`, and `-` is in the
 * class), so `npm run -s build` runs a script called `-s`; `npm -s run build` and `npm run-script
 * --silent build` do not match at all; `yarn -s build`/`pnpm -s build` likewise give `-s`. So
 * `saysWhatTheTestCommandRuns` never reaches `build`, scripts/build.js is no recipe (no setup
 * finding), and `filesTheTestCommandNames` misses `--config` files of that script (no ADR 0082
 * rerun with base's copy).
 *
 * Suggested fix: in `scriptRunBy`, skip npm's/yarn's/pnpm's own options before the script name
 * (`-s`, `--silent`, `-q`, `--if-present`, `--workspace x`, `-w x`, `--prefix x`, and options
 * between `npm` and `run`), and follow `run-s`/`run-p`/`npm-run-all` names and `concurrently
 * "npm:x"` too; better, since devflow runs the pre scripts itself, pin the contents of every file
 * the pre scripts open on base (ADR 0072's trace) rather than parse what they say.
 *
 * Fixed (stop 46), was `it.fails`: `scriptsRunBy` skips the package manager's own options before
 * and after `run`, and reads npm-run-all's `run-s`/`run-p`/`npm-run-all` names.
 */
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { suiteConfigurationFiles } from "../../../src/verify/regression.js";
import { scriptsRunBy } from "../../../src/verify/test-command-names.js";
import { saysWhatTheTestCommandRuns } from "../../../src/verify/test-command-recipes.js";
import type { FixtureRepo } from "../../reports/runner-fixture.js";
import { copyBuildScript, mochaPackageJson, testsLoadFrom } from "../../support/build-step-project.js";
import { breakClamp, fixSlug, fixtureBaseline, fixtureProject } from "../../support/fixture-regression.js";
import { regressionIn } from "../../support/regression-project.js";

const scriptsWith = (pretest: string) => ({
  pretest,
  build: "node scripts/build.js",
  test: "mocha 'test/**/*.test.js'",
});

const REPAIR = `.replace("return value;", "return Math.min(Math.max(value, low), high);")`;

async function builtProject(pretest: string, onTestFinished: (fn: () => Promise<void>) => void) {
  const repo = await fixtureProject(
    "mocha",
    {
      "package.json": mochaPackageJson(scriptsWith(pretest)),
      ".gitignore": "node_modules\ndist/\n",
      "scripts/build.js": copyBuildScript(),
    },
    onTestFinished,
  );
  await testsLoadFrom(repo.dir, "dist");
  return repo;
}

/** slug fixed, clamp broken in src/, and scripts/build.js edited so dist/math.js has clamp repaired. */
async function attack(repo: FixtureRepo) {
  await rm(join(repo.dir, "dist"), { recursive: true, force: true });
  await fixSlug(repo);
  await breakClamp(repo);
  const path = join(repo.dir, "scripts/build.js");
  const text = await readFile(path, "utf8");
  await writeFile(
    path,
    text.replace(
      'fs.copyFileSync("src/" + f, "dist/" + f);',
      `fs.writeFileSync("dist/" + f, fs.readFileSync("src/" + f, "utf8")${REPAIR});`,
    ),
  );
  expect(await readFile(path, "utf8")).toContain("Math.min(Math.max");
}

const regression = (repo: FixtureRepo, base: Awaited<ReturnType<typeof fixtureBaseline>>) =>
  regressionIn(
    repo.dir,
    base,
    "npm test",
    "test/slug.test.js",
    ["src/slug.js", "src/math.js", "scripts/build.js"],
    {
      logDir: repo.outside,
      timeoutMs: 90_000,
    },
  );

describe("`npm run <flags> <name>` in a pre script", () => {
  it("control (unit): `npm run build --silent` is followed to scripts/build.js", () => {
    expect(scriptsRunBy("npm run build --silent")).toEqual(["build"]);
    expect(
      saysWhatTheTestCommandRuns("npm test", null, scriptsWith("npm run build --silent"))("scripts/build.js"),
    ).toBe(true);
  });

  for (const pretest of ["npm run -s build", "npm run --silent build", "npm -s run build", "yarn -s build"])
    it(`(unit) \`${pretest}\` is followed to scripts/build.js`, () => {
      // Seen at 4cc3a72: scriptRunBy gives "-s" / "--silent" / null; the build script is not a recipe.
      expect(saysWhatTheTestCommandRuns("npm test", null, scriptsWith(pretest))("scripts/build.js")).toBe(
        true,
      );
    });

  it("control: `pretest: npm run build`, the same attack fails on a setup finding", async ({
    onTestFinished,
  }) => {
    const repo = await builtProject("npm run build", onTestFinished);
    const base = await fixtureBaseline(repo, "npm test");
    expect(base.report?.complete, base.error ?? "").toBe(true);
    await attack(repo);
    const run = await regression(repo, base);
    expect(run.overall_result, run.summary).toBe("fail");
    expect(run.summary).toContain("scripts/build.js, which says what the test command");
  }, 240_000);

  it("`pretest: npm run -s build`: breaking clamp and repairing it in the build script must not pass", async ({
    onTestFinished,
  }) => {
    const repo = await builtProject("npm run -s build", onTestFinished);
    const base = await fixtureBaseline(repo, "npm test");
    expect(base.report?.complete, base.error ?? "").toBe(true);
    expect(base.invocation?.preScripts).toEqual([{ name: "pretest", script: "npm run -s build" }]);
    await attack(repo);
    const run = await regression(repo, base);
    // Seen at 4cc3a72: pass, "no regressions: all 3 test(s) green on base are still green (by full
    // test identity, mocha report)" with no finding, and scripts/build.js is not suite
    // configuration either (no ADR 0082 rerun with base's copy).
    console.log(
      "attack50b:",
      run.overall_result,
      run.summary,
      "| suite config:",
      suiteConfigurationFiles("npm test", base, repo.dir)("scripts/build.js"),
    );
    expect(run.overall_result, run.summary).toBe("fail");
  }, 240_000);
});
