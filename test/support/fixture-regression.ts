import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { RegressionEnvelope } from "../../src/artifacts/schemas/verifier-envelope.js";
import {
  type RegressionBaseline,
  runRegressionVerifier,
  takeRegressionBaseline,
} from "../../src/verify/regression.js";
import { type FixtureRepo, type FixtureRunner, makeFixtureRepo } from "../reports/runner-fixture.js";

/**
 * Regression on a real runner's fixture (test/fixtures/runners/<runner>, the runner installed from
 * npm): the baseline as readiness takes it on base, then the attempt's run compared with it. The
 * seam's tests are those of test/slug.test.js unless said; an attempt changes src/slug.js and
 * src/math.js.
 */

/** The fixture with `files` written over it, removed when the (possibly concurrent) test ends. */
export async function fixtureProject(
  runner: FixtureRunner,
  files: Readonly<Record<string, string>>,
  onTestFinished: (fn: () => Promise<void>) => void,
): Promise<FixtureRepo> {
  const repo = await makeFixtureRepo(runner);
  onTestFinished(() => repo.cleanup());
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(repo.dir, path)), { recursive: true });
    await repo.write(path, text);
  }
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

export const fixtureBaseline = (repo: FixtureRepo, command: string) =>
  takeRegressionBaseline({
    cwd: repo.dir,
    command,
    timeoutMs: 90_000,
    logPath: join(repo.outside, "baseline.log"),
  });

export async function fixtureRegression(
  repo: FixtureRepo,
  command: string,
  baseline: RegressionBaseline,
  seamFile = "test/slug.test.js",
): Promise<RegressionEnvelope> {
  const envelope = await runRegressionVerifier({
    worktree: repo.dir,
    command,
    baseline,
    timeoutMs: 90_000,
    logPath: join(repo.outside, "regression.log"),
    attemptId: "attempt-001",
    seamTests: (baseline.report?.tests ?? []).filter((t) => t.id.file === seamFile).map((t) => t.key),
    changedFiles: ["src/slug.js", "src/math.js"],
  });
  return RegressionEnvelope.parse(envelope);
}
