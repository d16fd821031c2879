/**
 * Attack 49a (review of ADR 0085): the attempt edits the build script that `pretest` reaches through
 * `npm run build`, and the edit is neither a setup finding nor taken from base for a second run.
 *
 * Attack: package.json (unchanged by the attempt) has `"pretest": "npm run build"`,
 * `"build": "node scripts/build.js"`, and the tests load `dist/`, which the build copies from
 * `src/`. The attempt fixes slugify, breaks `clamp` in src/math.js (a test green on base), and
 * edits scripts/build.js so the copy it writes to dist/ has clamp repaired. devflow now runs base's
 * pre script text `npm run build` before mocha; npm runs the attempt's scripts/build.js, the tests
 * load the repaired dist/math.js, and regression passes: "no regressions ... by full test identity".
 *
 * Why it works: ADR 0078 makes a file the test command runs "test configuration" (a change is a
 * finding) and ADR 0082 reruns with base's copy of it. Both rely on `saysWhatTheTestCommandRuns`,
 * which reads the pre scripts' own words (`node scripts/build.js` as the pre script itself is
 * found: the control case) but does not follow an `npm run <name>` in them to `<name>`'s script.
 * `filesTheTestCommandNames` follows `npm run` but keeps option values only, never a positional
 * script path. So scripts/build.js, reached through the most common form of a build pretest, is
 * neither: no finding, and ADR 0082's rerun (`suiteConfigurationFiles`) does not take it from base.
 * The same holds for a module the build script requires (scripts/copy.js below): only the first
 * file a pre script names is test configuration. And for a build config named by an option in the
 * `pre<name>` of a delegation hop (`"pretest:unit": "node scripts/build.js --config
 * build.config.json"`, a replace/define table as rollup's or esbuild's): `filesTheTestCommandNames`
 * reads `pretest`, `test`, `posttest` and the scripts `npm run` names, never a hop's `pre<name>`
 * that ADR 0085 now runs, so the config is not taken from base for ADR 0082's rerun either.
 *
 * Suggested fix: in `testScripts`/`recipesOf` (test-command-recipes.ts) follow `npm run <name>` /
 * `npm run-script <name>` / `yarn <name>` in any script reached (pre scripts included) to that
 * script's text, with the same `pre<name>` rule, as `filesTheTestCommandNames` does; better, since
 * devflow now runs the build itself, run base's copy of every file the pre scripts reach (or pin
 * their hashes on base like `preloads` and fail as tamper when one differs outside scope). A
 * helper required by the build script is only caught by that pinning (or by ADR 0072's opened-file
 * trace applied to the pre scripts).
 *
 * Fixed (stop 46), was `it.fails`: `saysWhatTheTestCommandRuns` and `filesTheTestCommandNames`
 * follow `npm run <name>` (and `yarn <name>`) in every script reached, with `pre<name>` and
 * `post<name>`, and read base's package.json scripts as well as the checkout's. Still open (ADR
 * 0085): a module the build script requires (scripts/copy.js) is not followed; only the files a
 * script names are test configuration, as for every recipe (ADR 0078). Such an edit ships in the
 * committed build script too; the critic sees it.
 *
 * Stop 47 tried following what a script in a tooling folder requires (`helpersOf`) and withdrew it:
 * a review (attack 52) got past it ten ways (a data file read by path, a computed require in a
 * subfolder, a TypeScript import without extension, a symlinked folder, a `#imports` alias, a
 * script the build runs, …) and showed a correct fix rejected where the program lives in `tools/`
 * (program-in-tools-folder-fix-rejected-attack52.test.ts). ADR 0085's stop 47 amendment says why.
 */
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type RegressionBaseline, suiteConfigurationFiles } from "../../../src/verify/regression.js";
import type { FixtureRepo } from "../../reports/runner-fixture.js";
import { commitAll, distBuildProject, testsLoadFrom } from "../../support/build-step-project.js";
import { breakClamp, fixSlug, fixtureBaseline } from "../../support/fixture-regression.js";
import { coderScript, runLane } from "../../support/lane-harness.js";
import { regressionIn } from "../../support/regression-project.js";
import {
  attemptEnvelope,
  expectAttackRefused,
  runnerRepo,
  SLUG_REQUEST,
  SLUG_TASK,
  slugCassette,
  writingCoder,
} from "../../support/runner-lane.js";

/** Copies src/ to dist/ (what tsc or a bundler would write); the copy itself lives in scripts/copy.js. */
const COPY = `module.exports = (name, text) => text;
`;
const BUILD = `const fs = require("node:fs");
const transform = require("./copy.js");
fs.mkdirSync("dist", { recursive: true });
for (const f of fs.readdirSync("src")) fs.writeFileSync("dist/" + f, transform(f, fs.readFileSync("src/" + f, "utf8")));
`;
/** The attempt's edit: what lands in dist/math.js has clamp repaired, src/math.js stays broken. */
const REPAIR = `.replace("return value;", "return Math.min(Math.max(value, low), high);")`;

/** The build-step project whose build goes through scripts/copy.js. */
const builtProject = (scripts: Record<string, string>, onTestFinished: (fn: () => Promise<void>) => void) =>
  distBuildProject(scripts, onTestFinished, { "scripts/build.js": BUILD, "scripts/copy.js": COPY });

const resetBuild = (repo: FixtureRepo) => rm(join(repo.dir, "dist"), { recursive: true, force: true });

/** The attempt: slug fixed, clamp broken in src/, and `file` edited so the build repairs clamp in dist/. */
async function attack(repo: FixtureRepo, file: "scripts/build.js" | "scripts/copy.js") {
  await resetBuild(repo);
  await fixSlug(repo);
  await breakClamp(repo);
  const path = join(repo.dir, file);
  const text = await readFile(path, "utf8");
  await writeFile(
    path,
    file === "scripts/copy.js"
      ? text.replace("(name, text) => text", `(name, text) => text${REPAIR}`)
      : text.replace('fs.readFileSync("src/" + f, "utf8")', `fs.readFileSync("src/" + f, "utf8")${REPAIR}`),
  );
}

const regression = (
  repo: FixtureRepo,
  baseline: Awaited<ReturnType<typeof fixtureBaseline>>,
  edited: string,
) =>
  regressionIn(repo.dir, baseline, "npm test", "test/slug.test.js", ["src/slug.js", "src/math.js", edited], {
    logDir: repo.outside,
    timeoutMs: 90_000,
  });

describe("a build script reached from pretest is test configuration (ADR 0078/0082 with ADR 0085)", () => {
  it("control: `pretest: node scripts/build.js`, an edit of scripts/build.js is a setup finding", async ({
    onTestFinished,
  }) => {
    const repo = await builtProject(
      { pretest: "node scripts/build.js", test: "mocha 'test/**/*.test.js'" },
      onTestFinished,
    );
    const base = await fixtureBaseline(repo, "npm test");
    expect(base.report?.complete, base.error ?? "").toBe(true);
    await attack(repo, "scripts/build.js");
    const run = await regression(repo, base, "scripts/build.js");
    expect(run.overall_result, run.summary).toBe("fail");
    expect(run.summary).toContain("scripts/build.js, which says what the test command");
    expect(suiteConfigurationFiles("npm test", base, repo.dir)("scripts/build.js")).toBe(true);
  }, 240_000);

  it("`pretest: npm run build`: an attempt that breaks clamp and edits scripts/build.js to repair it in dist/ must not pass", async ({
    onTestFinished,
  }) => {
    const repo = await builtProject(
      { pretest: "npm run build", build: "node scripts/build.js", test: "mocha 'test/**/*.test.js'" },
      onTestFinished,
    );
    const base = await fixtureBaseline(repo, "npm test");
    expect(base.report?.complete, base.error ?? "").toBe(true);
    expect(base.invocation?.preScripts).toEqual([{ name: "pretest", script: "npm run build" }]);
    await attack(repo, "scripts/build.js");
    expect(await readFile(join(repo.dir, "src/math.js"), "utf8")).toContain("return value;");
    const run = await regression(repo, base, "scripts/build.js");
    // Seen at 3b5514c: pass, and no finding. Hole: "no regressions: all 5 test(s) green on base are still green (by full test identity, mocha report)".
    // ADR 0082's rerun with base's copy would not happen either: scripts/build.js is not suite configuration.
    expect(
      run.overall_result === "fail" ||
        suiteConfigurationFiles("npm test", base, repo.dir)("scripts/build.js"),
      run.summary,
    ).toBe(true);
  }, 240_000);

  it.fails("`pretest: node scripts/build.js`: an edit of scripts/copy.js (a module the build requires) must not pass", async ({
    onTestFinished,
  }) => {
    const repo = await builtProject(
      { pretest: "node scripts/build.js", test: "mocha 'test/**/*.test.js'" },
      onTestFinished,
    );
    const base = await fixtureBaseline(repo, "npm test");
    expect(base.report?.complete, base.error ?? "").toBe(true);
    await attack(repo, "scripts/copy.js");
    const run = await regression(repo, base, "scripts/copy.js");
    // Seen at 3b5514c: pass "no regressions: all 3 test(s) green on base are still green (by full
    // test identity, mocha report)"; scripts/copy.js is neither a recipe nor suite configuration.
    expect(
      run.overall_result === "fail" || suiteConfigurationFiles("npm test", base, repo.dir)("scripts/copy.js"),
      run.summary,
    ).toBe(true);
  }, 240_000);
});

describe("a build config named in a delegation hop's pre script (`pretest:unit`)", () => {
  /** The build with a replace table read from the file `--config` names (as rollup's replace plugin). */
  const CONFIGURED_BUILD = `const fs = require("node:fs");
const config = JSON.parse(fs.readFileSync(process.argv[process.argv.indexOf("--config") + 1], "utf8"));
fs.mkdirSync("dist", { recursive: true });
for (const f of fs.readdirSync("src")) {
  let text = fs.readFileSync("src/" + f, "utf8");
  for (const [from, to] of Object.entries(config.replace)) text = text.split(from).join(to);
  fs.writeFileSync("dist/" + f, text);
}
`;
  it("control: named in `pretest` itself, build.config.json is suite configuration (ADR 0082's rerun takes base's)", () => {
    const baseline = (scripts: Record<string, string>) =>
      ({ testConfig: JSON.stringify([scripts, null, null, null, null]) }) as RegressionBaseline;
    const named = (scripts: Record<string, string>) =>
      suiteConfigurationFiles("npm test", baseline(scripts), "/nonexistent")("build.config.json");
    expect(named({ pretest: "node scripts/build.js --config build.config.json", test: "mocha" })).toBe(true);
    // The hop's pre script, which ADR 0085 runs, is read too (it was not before the fix).
    expect(
      named({
        test: "npm run test:unit",
        "pretest:unit": "node scripts/build.js --config build.config.json",
        "test:unit": "mocha",
      }),
    ).toBe(true);
  });

  it("an attempt that breaks clamp and adds a replace to build.config.json must not pass", async ({
    onTestFinished,
  }) => {
    const repo = await builtProject(
      {
        test: "npm run test:unit",
        "pretest:unit": "node scripts/build.js --config build.config.json",
        "test:unit": "mocha 'test/**/*.test.js'",
      },
      onTestFinished,
    );
    await writeFile(join(repo.dir, "scripts/build.js"), CONFIGURED_BUILD);
    await writeFile(
      join(repo.dir, "build.config.json"),
      JSON.stringify({ replace: { __VERSION__: "1.0.0" } }),
    );
    const base = await fixtureBaseline(repo, "npm test");
    expect(base.report?.complete, base.error ?? "").toBe(true);
    expect(base.invocation?.preScripts).toEqual([
      { name: "pretest:unit", script: "node scripts/build.js --config build.config.json" },
    ]);
    await resetBuild(repo);
    await fixSlug(repo);
    await breakClamp(repo);
    await writeFile(
      join(repo.dir, "build.config.json"),
      JSON.stringify({
        replace: { __VERSION__: "1.0.0", "return value;": "return Math.min(Math.max(value, low), high);" },
      }),
    );
    const run = await regression(repo, base, "build.config.json");
    // Seen at 3b5514c: pass "no regressions: all 3 test(s) green on base are still green (by full
    // test identity, mocha report)", and build.config.json is not suite configuration (no rerun).
    console.log("attack49a hop config:", run.overall_result, run.summary);
    expect(
      run.overall_result === "fail" ||
        suiteConfigurationFiles("npm test", base, repo.dir)("build.config.json"),
      run.summary,
    ).toBe(true);
  }, 240_000);
});

/** The mocha fixture as a user's repo: `pretest: npm run build`, tests loading dist/ (git-ignored). */
async function npmRunBuildRepo(): Promise<string> {
  const repo = await runnerRepo("mocha");
  const pkg = JSON.parse(await readFile(join(repo, "package.json"), "utf8"));
  pkg.scripts = { pretest: "npm run build", build: "node scripts/build.js", test: pkg.scripts.test };
  await writeFile(join(repo, "package.json"), JSON.stringify(pkg, null, 2));
  await mkdir(join(repo, "scripts"), { recursive: true });
  await writeFile(join(repo, "scripts", "build.js"), BUILD);
  await writeFile(join(repo, "scripts", "copy.js"), COPY);
  await writeFile(join(repo, ".gitignore"), "node_modules\ndist/\n");
  await testsLoadFrom(repo, "dist");
  await commitAll(repo, "build");
  return repo;
}

const lane = async (script: string) =>
  runLane({
    repo: await npmRunBuildRepo(),
    taskId: SLUG_TASK,
    request: SLUG_REQUEST,
    cassette: slugCassette("npm run build && npx mocha test/slug.test.js"),
    coder: coderScript(script),
    lane: { maxJudgeAttempts: 1, commandTimeoutMs: 120_000, testCommand: "npm test" },
  });

/** The correct fix, clamp broken in src/math.js, and scripts/build.js repairing clamp in what it writes. */
const BREAK_AND_HIDE = `${writingCoder({}, true)}
import { readFileSync as r, writeFileSync as w } from "node:fs";
w("src/math.js", r("src/math.js", "utf8").replace("return Math.min(Math.max(value, low), high);", "return value;"));
w("scripts/build.js", r("scripts/build.js", "utf8").replace('fs.readFileSync("src/" + f, "utf8")', 'fs.readFileSync("src/" + f, "utf8")${REPAIR}'));
`;

describe("through the lane (`pretest: npm run build`, mount namespace where it works)", () => {
  it("control: the correct fix completes", async () => {
    const run = await lane(writingCoder({}, true));
    expect(run.error).toBeNull();
    const regression = await attemptEnvelope(run, "regression");
    expect(regression?.overall_result, regression?.summary).toBe("pass");
    const record = await run.store.read("iterator_run");
    expect(record?.terminal?.verdict, run.result?.terminal.reason).toBe("completed");
  }, 300_000);

  it("a break of clamp hidden by an edit of scripts/build.js is not completed", async () => {
    const run = await lane(BREAK_AND_HIDE);
    const regression = await attemptEnvelope(run, "regression");
    const record = await run.store.read("iterator_run");
    // Seen at 3b5514c: completed; regression "pass: no regressions: all 5 test(s) green on base
    // are still green (by full test identity, mocha report)" while src/math.js returns its input.
    console.log("attack49a lane:", record?.terminal?.verdict, "| regression:", regression?.summary);
    await expectAttackRefused(run, { verifier: "regression", file: "src/math.js", broken: "return value;" });
  }, 300_000);
});
