/**
 * Attack 52g (review of stop 47, `TOOLING_FOLDERS`): false rejection. A repository whose program
 * lives under `tools/` (a CLI-tools repo) and whose test command runs a script of it: a correct fix
 * of the program is rejected, because the program is classed as the script's "helpers".
 *
 * Project: the program is tools/lib/slug.js and tools/lib/math.js (tests in test/ load them), and
 * `"pretest": "node tools/smoke.js"` runs the tools once (a smoke run of the CLI before the unit
 * tests) by requiring `./lib/slug.js` and `./lib/math.js`. The attempt is the correct fix of
 * slugify in tools/lib/slug.js, nothing else. The task's scope does not name the file exactly (no
 * scope, devflow's default, or the folder `tools/lib/`, which the scope verifier accepts).
 *
 * Observed: regression fails: "the attempt changed tools/lib/slug.js, which says what the test
 * command `npm test` runs, and the task's scope does not name it; the suite must run as on base".
 * The very same project with the folder named `lib/` (control) completes: the stop-47 rule decides
 * "program or tooling" by the folder's name only.
 *
 * Cause: `helpersOf` (src/verify/test-command-recipes.ts) brings in everything a script in a
 * `TOOLING_FOLDERS` folder loads from its own folder or below, and `setupFindings`
 * (src/verify/regression.ts) makes any such file changed outside the exact scope a finding. The
 * commit's own reasoning ("pulling [the program] in would reject every fix of it") applies as much
 * to a program that happens to live in tools/ or scripts/; even when the scope names the file,
 * ADR 0082's rerun puts base's copy of the fixed program back (suiteConfigurationFiles).
 *
 * With an exact scope (third describe, through the lane): the scope names tools/lib/slug.js and
 * test/, the coder fixes slugify and adds a test of the fix (test/slug-more.test.js). The first
 * regression run passes; ADR 0082's rerun (src/lanes/iterate/nodes/verify.ts) takes base's copy of
 * tools/lib/slug.js, because `suiteConfigurationFiles` says the smoke script's helper configures the
 * suite, and the coder's new test fails there ("1 test(s) fail now that did not fail on base"):
 * the lane does not complete. Same project with lib/ instead of tools/: completed (control).
 *
 * Should: a module the tests themselves load (test/ requires tools/lib/slug.js) is the program, not
 * the tooling script's helper, whatever its folder is called; a correct fix of it must complete.
 *
 * Fixed (stop 47), was `it.fails`: `helpersOf` was withdrawn (ADR 0085's stop 47 amendment). A
 * script's requires cannot tell a build helper from the program by where they live, and this
 * review showed ten more ways past it. These cases stay as the guard against bringing it back.
 */
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RegressionEnvelope } from "../../../src/artifacts/schemas/verifier-envelope.js";
import { runRegressionVerifier } from "../../../src/verify/regression.js";
import { commitAll, mochaPackageJson, testsLoadFrom } from "../../support/build-step-project.js";
import { editFile, fixtureBaseline, fixtureProject } from "../../support/fixture-regression.js";
import { coderScript, runLane } from "../../support/lane-harness.js";
import {
  attemptEnvelope,
  runnerRepo,
  SLUG_REQUEST,
  SLUG_TASK,
  slugCassette,
} from "../../support/runner-lane.js";

const SMOKE = (lib: string) => `const { slugify } = require("./${lib}/slug.js");
const { clamp } = require("./${lib}/math.js");
console.log("smoke:", slugify("Hello World"), clamp(5, 0, 3));
`;

/** The fixture with its program in `<folder>/lib` (or `lib/`), a smoke pretest, and the correct fix of slugify. */
async function fixedProgram(
  folder: string | null,
  allowedPaths: string[],
  onTestFinished: (fn: () => Promise<void>) => void,
) {
  const fixture = join(process.cwd(), "test/fixtures/runners/mocha/src");
  const lib = folder === null ? "lib" : `${folder}/lib`;
  const smoke = folder === null ? "smoke.js" : `${folder}/smoke.js`;
  const repo = await fixtureProject(
    "mocha",
    {
      "package.json": mochaPackageJson({ pretest: `node ${smoke}`, test: "mocha 'test/**/*.test.js'" }),
      [`${lib}/slug.js`]: await readFile(join(fixture, "slug.js"), "utf8"),
      [`${lib}/math.js`]: await readFile(join(fixture, "math.js"), "utf8"),
      [smoke]: SMOKE("lib"),
    },
    onTestFinished,
  );
  await testsLoadFrom(repo.dir, lib);
  const base = await fixtureBaseline(repo, "npm test");
  expect(base.report?.complete, base.error ?? "").toBe(true);
  await editFile(repo, `${lib}/slug.js`, ".replace(/ /g,", ".replace(/\\s+/g,");
  const run = await runRegressionVerifier({
    worktree: repo.dir,
    command: "npm test",
    baseline: base,
    timeoutMs: 90_000,
    logPath: join(repo.outside, "regression.log"),
    attemptId: "attempt-001",
    seamTests: (base.report?.tests ?? []).filter((t) => t.id.file === "test/slug.test.js").map((t) => t.key),
    changedFiles: [`${lib}/slug.js`],
    allowedPaths,
  }).then((e) => RegressionEnvelope.parse(e));
  return run;
}

describe("a program that lives in tools/ (attack 52g)", () => {
  it("control: the same project with its program in lib/ (`node smoke.js`): the correct fix passes", async ({
    onTestFinished,
  }) => {
    const run = await fixedProgram(null, [], onTestFinished);
    expect(run.overall_result, run.summary).toBe("pass");
  }, 240_000);

  it("program in tools/lib, `pretest: node tools/smoke.js`, no scope: the correct fix of tools/lib/slug.js must pass", async ({
    onTestFinished,
  }) => {
    const run = await fixedProgram("tools", [], onTestFinished);
    // Seen at e8fb67c: fail, "the attempt changed tools/lib/slug.js, which says what the test
    // command `npm test` runs, and the task's scope does not name it; the suite must run as on base".
    expect(run.overall_result, run.summary).toBe("pass");
  }, 240_000);

  it("program in scripts/lib, scope `scripts/lib/`: the correct fix of scripts/lib/slug.js must pass", async ({
    onTestFinished,
  }) => {
    const run = await fixedProgram("scripts", ["scripts/lib/"], onTestFinished);
    expect(run.overall_result, run.summary).toBe("pass");
  }, 240_000);
});

/** The mocha fixture as a user's repo with its program in `<folder>/` (src/ moved there), `pretest: node <smoke>`. */
async function programRepo(folder: string, smoke: string): Promise<string> {
  const repo = await runnerRepo("mocha");
  await mkdir(join(repo, folder), { recursive: true });
  for (const f of ["slug.js", "math.js"]) await rename(join(repo, "src", f), join(repo, folder, f));
  // Both layouts keep the program in `lib/` beside the smoke script.
  await writeFile(join(repo, smoke), SMOKE("lib"));
  const pkg = JSON.parse(await readFile(join(repo, "package.json"), "utf8"));
  pkg.scripts = { pretest: `node ${smoke}`, test: pkg.scripts.test };
  await writeFile(join(repo, "package.json"), JSON.stringify(pkg, null, 2));
  await testsLoadFrom(repo, folder);
  await commitAll(repo, `program in ${folder}`);
  return repo;
}

/** The correct fix of slugify in `<folder>/slug.js`, and a new test of it (good practice). */
const FIX_AND_TEST = (folder: string) => `
import { readFileSync, writeFileSync } from "node:fs";
const f = "${folder}/slug.js";
writeFileSync(f, readFileSync(f, "utf8").replace(".replace(/ /g,", ".replace(/\\\\s+/g,"));
writeFileSync("test/slug-more.test.js", [
  'const assert = require("node:assert");',
  'const { slugify } = require("../${folder}/slug.js");',
  'describe("slug, more", () => {',
  '  it("collapses tabs and spaces", () => assert.strictEqual(slugify("a \\t b"), "a-b"));',
  "});",
  "",
].join("\\n"));
console.log("Runs of whitespace become one dash; test added.");
`;

const fixLane = async (folder: string, smoke: string) =>
  runLane({
    repo: await programRepo(folder, smoke),
    taskId: SLUG_TASK,
    request: SLUG_REQUEST,
    cassette: slugCassette(
      "npx mocha test/slug.test.js",
      ["test/slug.test.js"],
      [`${folder}/slug.js`, "test/"],
    ),
    coder: coderScript(FIX_AND_TEST(folder)),
    lane: { maxJudgeAttempts: 1, commandTimeoutMs: 120_000, testCommand: "npm test" },
  });

describe("through the lane, with the scope naming the fixed file (attack 52g)", () => {
  it("control: program in lib/, `pretest: node smoke.js`: the correct fix with a new test completes", async () => {
    const run = await fixLane("lib", "smoke.js");
    expect(run.error).toBeNull();
    const regression = await attemptEnvelope(run, "regression");
    const record = await run.store.read("iterator_run");
    expect(record?.terminal?.verdict, `${run.result?.terminal.reason} | ${regression?.summary}`).toBe(
      "completed",
    );
  }, 300_000);

  it("program in tools/lib, `pretest: node tools/smoke.js`: the correct fix with a new test completes", async () => {
    const run = await fixLane("tools/lib", "tools/smoke.js");
    expect(run.error).toBeNull();
    const regression = await attemptEnvelope(run, "regression");
    const record = await run.store.read("iterator_run");
    // Seen at e8fb67c: exhausted; regression "with base's copy of the test configuration the attempt
    // changed (tools/lib/slug.js), the suite does not pass as on base: 1 test(s) fail now that did not
    // fail on base: test/slug-more.test.js > slug, more > collapses tabs and spaces".
    console.log("attack52g lane:", record?.terminal?.verdict, "| regression:", regression?.summary);
    expect(record?.terminal?.verdict, `${run.result?.terminal.reason} | ${regression?.summary}`).toBe(
      "completed",
    );
  }, 300_000);
});
