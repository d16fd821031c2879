import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { RegressionEnvelope } from "../../src/artifacts/schemas/verifier-envelope.js";
import type { RegressionBaseline } from "../../src/verify/regression.js";
import { type FixtureRepo, type FixtureRunner, makeFixtureRepo } from "../reports/runner-fixture.js";
import { baselineIn, regressionIn, writeFiles } from "./regression-project.js";

/**
 * Regression on a real runner's fixture (test/fixtures/runners/<runner>, the runner installed from
 * npm): the baseline as readiness takes it on base, then the attempt's run compared with it
 * (regression-project.ts's runs, logs outside the repo). The seam's tests are those of
 * test/slug.test.js unless said; an attempt changes src/slug.js and src/math.js.
 */

/** The fixture with `files` written over it, removed when the (possibly concurrent) test ends. */
export async function fixtureProject(
  runner: FixtureRunner,
  files: Readonly<Record<string, string>>,
  onTestFinished: (fn: () => Promise<void>) => void,
): Promise<FixtureRepo> {
  const repo = await makeFixtureRepo(runner);
  onTestFinished(() => repo.cleanup());
  await writeFiles(repo.dir, files);
  return repo;
}

/** Replaces `from` by `to` in a file of the repo; a `from` not found is the test's own mistake. */
export async function editFile(repo: FixtureRepo, file: string, from: string, to: string): Promise<void> {
  const path = join(repo.dir, file);
  const before = await readFile(path, "utf8");
  if (!before.includes(from)) throw new Error(`${file}: ${from} not found`);
  await writeFile(path, before.replace(from, to));
}

/** The seam's fix in every fixture's src/slug.js: runs of spaces become one dash. */
export const fixSlug = (repo: FixtureRepo) =>
  editFile(repo, "src/slug.js", ".replace(/ /g,", ".replace(/\\s+/g,");

/** A break of every fixture's clamp (src/math.js): it returns its input. */
export const breakClamp = (repo: FixtureRepo) =>
  editFile(repo, "src/math.js", "return Math.min(Math.max(value, low), high);", "return value;");

/** Undoes `breakClamp`. */
export const unbreakClamp = (repo: FixtureRepo) =>
  editFile(repo, "src/math.js", "return value;", "return Math.min(Math.max(value, low), high);");

/** Runs outside the repo, with room for jest's start on a busy machine. */
const runOptions = (repo: FixtureRepo) => ({ logDir: repo.outside, timeoutMs: 90_000 });

export const fixtureBaseline = (repo: FixtureRepo, command: string) =>
  baselineIn(repo.dir, command, [], runOptions(repo));

export const fixtureRegression = (
  repo: FixtureRepo,
  command: string,
  baseline: RegressionBaseline,
  seamFile = "test/slug.test.js",
  changedFiles: readonly string[] = ["src/slug.js", "src/math.js"],
) => regressionIn(repo.dir, baseline, command, seamFile, changedFiles, runOptions(repo));

/** The mocha fixture's package.json with a script that names its own reporter: judged from the console. */
export const MOCHA_CONSOLE_PACKAGE_JSON = JSON.stringify({
  name: "fixture-mocha",
  private: true,
  scripts: { test: "mocha --reporter spec 'test/**/*.test.js'" },
  devDependencies: { mocha: "10.8.2" },
});

/**
 * Regression's verdicts on the seam fixed with `clamp` broken, then on the correct fix (`clamp`
 * restored): the two attempts most of these tests judge. `reset` runs before each run, as the
 * lane resets its verification checkout (remove what base's run wrote).
 */
export async function brokenThenFixed(
  repo: FixtureRepo,
  command: string,
  baseline: RegressionBaseline,
  reset: () => Promise<void> = async () => {},
): Promise<{ broken: RegressionEnvelope; fixed: RegressionEnvelope }> {
  await reset();
  await fixSlug(repo);
  await breakClamp(repo);
  const broken = await fixtureRegression(repo, command, baseline);
  await reset();
  await unbreakClamp(repo);
  return { broken, fixed: await fixtureRegression(repo, command, baseline) };
}
