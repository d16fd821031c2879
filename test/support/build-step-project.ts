import { copyFile, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import type { RegressionBaseline } from "../../src/verify/regression.js";
import type { FixtureRepo } from "../reports/runner-fixture.js";
import { breakClamp, fixSlug, fixtureProject, fixtureRegression } from "./fixture-regression.js";
import { runnerRepo } from "./runner-lane.js";

/**
 * The mocha fixture (test/fixtures/runners/mocha) turned into a project with a build step, as
 * TypeScript or bundled projects are: a `pretest` writes what the tests load (ADR 0085's tests and
 * the attack-49 review).
 */

/** A build that copies src/ to `out`, as `tsc` or a bundler would write it. */
export const copyBuildScript = (out = "dist"): string => `const fs = require("node:fs");
fs.mkdirSync(${JSON.stringify(out)}, { recursive: true });
for (const f of fs.readdirSync("src")) fs.copyFileSync("src/" + f, ${JSON.stringify(`${out}/`)} + f);
`;

/** The mocha fixture's package.json with `scripts`. */
export const mochaPackageJson = (scripts: Record<string, string>): string =>
  JSON.stringify({ name: "fixture-mocha", private: true, scripts, devDependencies: { mocha: "10.8.2" } });

/** Points the fixture's tests at `folder` (the build's output) instead of src/. */
export async function testsLoadFrom(dir: string, folder: string): Promise<void> {
  for (const file of ["test/math.test.js", "test/slug.test.js"]) {
    const path = join(dir, file);
    await writeFile(path, (await readFile(path, "utf8")).replaceAll("../src/", `../${folder}/`));
  }
}

/** Commits everything in `dir` as a user would. */
export async function commitAll(dir: string, message: string): Promise<void> {
  await execa("git", ["add", "-A"], { cwd: dir });
  await execa("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", message], {
    cwd: dir,
  });
}

/** A lint step red on base: src/legacy.js still holds a `console.log` (files to add to a project). */
export const RED_LINT_FILES: Readonly<Record<string, string>> = {
  "scripts/lint.js": `const fs = require("node:fs");
const bad = fs.readdirSync("src").filter((f) => fs.readFileSync("src/" + f, "utf8").includes("console.log"));
if (bad.length > 0) { console.error("lint: console.log in " + bad.join(", ")); process.exit(1); }
`,
  "src/legacy.js": 'exports.legacy = () => console.log("legacy");\n',
};

/**
 * The mocha fixture with `scripts` as package.json's, `scripts/build.js` writing `dist/` (git-ignored)
 * from src/, the tests loading `dist/` (unless `loadDist` is false), and `more` files over it.
 */
export async function distBuildProject(
  scripts: Record<string, string>,
  onTestFinished: (fn: () => Promise<void>) => void,
  more: Readonly<Record<string, string>> = {},
  { loadDist = true }: { loadDist?: boolean } = {},
): Promise<FixtureRepo> {
  const repo = await fixtureProject(
    "mocha",
    {
      "package.json": mochaPackageJson(scripts),
      ".gitignore": "node_modules\ndist/\n",
      "scripts/build.js": copyBuildScript(),
      ...more,
    },
    onTestFinished,
  );
  if (loadDist) await testsLoadFrom(repo.dir, "dist");
  return repo;
}

/**
 * The mocha fixture with its build committed: `lib/` (a copy of src/) tracked and loaded by the tests,
 * `scripts/build.js` rebuilding it from src/, `scripts` as package.json's; all committed.
 */
export async function committedLibProject(
  scripts: Record<string, string>,
  onTestFinished: (fn: () => Promise<void>) => void,
): Promise<FixtureRepo> {
  const repo = await fixtureProject(
    "mocha",
    {
      "package.json": mochaPackageJson(scripts),
      ".gitignore": "node_modules\n",
      "scripts/build.js": copyBuildScript("lib"),
    },
    onTestFinished,
  );
  await mkdir(join(repo.dir, "lib"));
  for (const f of ["math.js", "slug.js"]) await copyFile(join(repo.dir, "src", f), join(repo.dir, "lib", f));
  await testsLoadFrom(repo.dir, "lib");
  await commitAll(repo.dir, "build committed");
  return repo;
}

/**
 * The attack on a build step (reviews, stops 46-47): the attempt fixes slugify, breaks `clamp` in
 * src/math.js (a test green on base) and edits `buildFile` (the copy build's script) so that what
 * lands in dist/math.js has clamp repaired. Regression's verdict on it against `base`; base's build
 * output is removed first, as the lane's reset of its checkout does.
 */
export async function repairInTheBuild(repo: FixtureRepo, base: RegressionBaseline, buildFile: string) {
  await rm(join(repo.dir, "dist"), { recursive: true, force: true });
  await fixSlug(repo);
  await breakClamp(repo);
  const path = join(repo.dir, buildFile);
  const text = await readFile(path, "utf8");
  const edited = text.replace(
    'fs.copyFileSync("src/" + f, "dist/" + f);',
    `fs.writeFileSync("dist/" + f, fs.readFileSync("src/" + f, "utf8").replace("return value;", "return Math.min(Math.max(value, low), high);"));`,
  );
  if (edited === text) throw new Error(`${buildFile} holds no copy build to edit`);
  await writeFile(path, edited);
  return fixtureRegression(repo, "npm test", base, "test/slug.test.js", [
    "src/slug.js",
    "src/math.js",
    buildFile,
  ]);
}

/**
 * The `runner` fixture as a user's repo (runner-lane.ts's `runnerRepo`) whose tests load `dist/`,
 * which `pretest` (`node scripts/build.js`) copies from `src/` (git ignores it); `more` files
 * (an `.npmrc`, say) over it. Committed.
 */
export async function builtRunnerRepo(
  runner: "mocha" | "jest",
  more: Readonly<Record<string, string>> = {},
): Promise<string> {
  const repo = await runnerRepo(runner);
  const pkg = JSON.parse(await readFile(join(repo, "package.json"), "utf8"));
  pkg.scripts = { pretest: "node scripts/build.js", test: pkg.scripts.test };
  await writeFile(join(repo, "package.json"), JSON.stringify(pkg, null, 2));
  await mkdir(join(repo, "scripts"));
  await writeFile(join(repo, "scripts", "build.js"), copyBuildScript());
  await writeFile(join(repo, ".gitignore"), "node_modules\ndist/\n");
  for (const [path, text] of Object.entries(more)) await writeFile(join(repo, path), text);
  await testsLoadFrom(repo, "dist");
  await commitAll(repo, "build step");
  return repo;
}
