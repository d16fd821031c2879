/**
 * ADR 0088: a package command devflow cannot run itself as the package manager would (`pnpm test`
 * with a `pretest`: pnpm runs it only with `enable-pre-post-scripts`, yarn 1 always, yarn 2+ never)
 * runs as written, the package manager deciding what runs, with package.json's scripts as on base
 * and the runner's script asking for its report. Before it, such a jest suite was judged from its
 * console, which names no passing test when jest runs several files: every attempt, the correct fix
 * included, failed with "baseline was red and results could not be compared per test" (attack 53a).
 *
 * Real jest, a real git repo, and a `pnpm` stub honouring pnpm's documented contract for scripts
 * (test/support/pnpm-stub.ts): `pre<name>` runs only when `.npmrc` enables it.
 * Mutations (each run red here): resolveInvocation ignoring `throughPackageManager` (console path:
 * the correct fixes rejected); withBaseScripts not writing the scripts (no report: the same); the
 * attempt's scripts left in place (its pretest repairs the build output and hides a broken clamp).
 */
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RegressionEnvelope } from "../../src/artifacts/schemas/verifier-envelope.js";
import { runRegressionVerifier } from "../../src/verify/regression.js";
import { commitAll, copyBuildScript, testsLoadFrom } from "../support/build-step-project.js";
import {
  breakClamp,
  fixSlug,
  fixtureBaseline,
  fixtureProject,
  fixtureRegression,
} from "../support/fixture-regression.js";
import { pnpmFirstOnPath } from "../support/pnpm-stub.js";

const jestPackage = (scripts: Record<string, string>) =>
  JSON.stringify(
    { name: "fixture-jest", private: true, scripts, devDependencies: { jest: "29.7.0" } },
    null,
    2,
  );

/** The jest fixture with `scripts`, and `files` over it (not committed). */
const project = (
  scripts: Record<string, string>,
  files: Record<string, string>,
  onTestFinished: (fn: () => Promise<void>) => void,
) => fixtureProject("jest", { "package.json": jestPackage(scripts), ...files }, onTestFinished);

/** pnpm runs pre scripts here (.npmrc); `pretest` builds dist/ from src/, which the tests load. Committed. */
async function buildProject(onTestFinished: (fn: () => Promise<void>) => void) {
  const repo = await project(
    { pretest: "node scripts/build.js", test: "jest" },
    {
      ".npmrc": "enable-pre-post-scripts=true\n",
      ".gitignore": "node_modules\ndist/\n",
      "scripts/build.js": copyBuildScript(),
    },
    onTestFinished,
  );
  await testsLoadFrom(repo.dir, "dist");
  await commitAll(repo.dir, "build step");
  return repo;
}

describe("a package command the package manager runs (ADR 0088)", () => {
  it("pnpm with enable-pre-post-scripts runs the pretest build the tests load: the correct fix passes, a break fails by name", async ({
    onTestFinished,
  }) => {
    await pnpmFirstOnPath(onTestFinished);
    const repo = await buildProject(onTestFinished);
    const base = await fixtureBaseline(repo, "pnpm test");
    expect(base.error, base.error ?? "").toBeNull();
    expect(base.invocation?.packageManager).toMatchObject({ command: "pnpm test", scriptName: "test" });
    // The tests load dist/: a report on base means pnpm ran the pretest build (nothing else writes it).
    expect(base.report?.tests.map((t) => t.status).sort()).toEqual([
      "fail",
      "pass",
      "pass",
      "pass",
      "pass",
      "pass",
      "skip",
      "todo",
    ]);
    const packageJson = await readFile(join(repo.dir, "package.json"), "utf8");

    // As the lane's reset of its verification checkout does: no build output of an earlier run.
    const resetBuild = () => rm(join(repo.dir, "dist"), { recursive: true, force: true });
    await resetBuild();
    await fixSlug(repo);
    const fixed = await fixtureRegression(repo, "pnpm test", base, "test/slug.test.js", ["src/slug.js"]);
    expect(fixed.overall_result, fixed.summary).toBe("pass");
    expect(fixed.summary).toContain("run as `pnpm test` with base's scripts");
    expect(fixed.native_payload).toMatchObject({ compared: "per_test", source: "reporter" });
    // The checkout's package.json is as the tree has it after every run.
    expect(await readFile(join(repo.dir, "package.json"), "utf8")).toBe(packageJson);

    await resetBuild();
    await breakClamp(repo);
    const broken = await fixtureRegression(repo, "pnpm test", base);
    expect(broken.overall_result).toBe("fail");
    expect(broken.summary).toContain("clamp");
  }, 240_000);

  it("pnpm without it runs no pretest: a pretest that would fail does not keep the correct fix from passing", async ({
    onTestFinished,
  }) => {
    await pnpmFirstOnPath(onTestFinished);
    const repo = await project({ pretest: 'node -e "process.exit(3)"', test: "jest" }, {}, onTestFinished);
    await commitAll(repo.dir, "pretest");
    const base = await fixtureBaseline(repo, "pnpm test");
    expect(base.error, base.error ?? "").toBeNull();
    expect(base.invocation?.packageManager?.why).toContain("may or may not run `pretest`");
    await fixSlug(repo);
    const fixed = await fixtureRegression(repo, "pnpm test", base, "test/slug.test.js", ["src/slug.js"]);
    expect(fixed.overall_result, fixed.summary).toBe("pass");
  }, 240_000);

  it("an attempt's own scripts are not what runs: a pretest that repairs the build output does not hide a broken clamp, the scope naming package.json", async ({
    onTestFinished,
  }) => {
    await pnpmFirstOnPath(onTestFinished);
    const repo = await buildProject(onTestFinished);
    const base = await fixtureBaseline(repo, "pnpm test");
    expect(base.invocation?.packageManager).toBeDefined();
    await rm(join(repo.dir, "dist"), { recursive: true, force: true });
    await fixSlug(repo);
    await breakClamp(repo);
    // The attempt's pretest builds, then repairs clamp in dist/ (untracked output, what the tests load).
    const repair = `node -e 'const fs = require("node:fs"); const f = "dist/math.js"; fs.writeFileSync(f, fs.readFileSync(f, "utf8").replace("return value;", "return Math.min(Math.max(value, low), high);"))'`;
    const pkg = JSON.parse(await readFile(join(repo.dir, "package.json"), "utf8"));
    pkg.scripts.pretest = `node scripts/build.js && ${repair}`;
    await writeFile(join(repo.dir, "package.json"), JSON.stringify(pkg, null, 2));
    const run = RegressionEnvelope.parse(
      await runRegressionVerifier({
        worktree: repo.dir,
        command: "pnpm test",
        baseline: base,
        timeoutMs: 90_000,
        logPath: join(repo.outside, "regression.log"),
        attemptId: "attempt-001",
        seamTests: (base.report?.tests ?? [])
          .filter((t) => t.id.file === "test/slug.test.js")
          .map((t) => t.key),
        changedFiles: ["src/slug.js", "src/math.js", "package.json"],
        // The scope names package.json exactly: its change is no finding, so only base's scripts stop this.
        allowedPaths: ["package.json", "src/"],
      }),
    );
    expect(run.overall_result, run.summary).toBe("fail");
    expect(run.summary).toContain("clamp");
    expect(run.summary).not.toContain("package.json");
  }, 240_000);
  it("`npm test` with a script reading npm's configuration ($npm_config_*): npm gives it, jest reports, the correct fix passes", async ({
    onTestFinished,
  }) => {
    const repo = await project(
      { test: "jest --testTimeout=$npm_config_jest_timeout" },
      { ".npmrc": "jest-timeout=20000\n" },
      onTestFinished,
    );
    await commitAll(repo.dir, "timeout from npm's configuration");
    const base = await fixtureBaseline(repo, "npm test");
    expect(base.error, base.error ?? "").toBeNull();
    expect(base.invocation?.packageManager?.why).toContain("reads npm's configuration");
    await fixSlug(repo);
    const fixed = await fixtureRegression(repo, "npm test", base, "test/slug.test.js", ["src/slug.js"]);
    expect(fixed.overall_result, fixed.summary).toBe("pass");
    expect(fixed.native_payload).toMatchObject({ compared: "per_test", source: "reporter" });
  }, 240_000);
});
