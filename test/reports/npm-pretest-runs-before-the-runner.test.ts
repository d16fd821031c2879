/**
 * Regression: a package whose `pretest` builds what its tests load (`npm test`, real mocha 10.8.2).
 *
 * Cause (found in stop 46): regression runs the runner named by base's test script itself, with
 * its report flags, not `npm test`, so npm's `pretest` never ran. The tests load `dist/`, which the
 * build writes and git ignores: on a clean checkout mocha found nothing to load and wrote no report.
 * Base was then judged from the console, where mocha's spec lines carry the last title only: all
 * seven tests merged into one key, `works`, and a fix that broke `clamp` passed ("all 1 test(s)
 * green on base are still green"). On the console path the package kept `npm test` as written, so a
 * `--bail` in its script stopped base and every attempt at the same known failure, and a break
 * after it passed too (ADR 0083's open item).
 * Fix: base's `pretest` (and `pre<name>` of each `npm run <name>` the test script delegates to) is
 * pinned with the runner invocation and runs before the runner in every report run and console
 * run (`withPreScripts` in src/verify/npm-pre-scripts.ts), each in a shell of its own.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveInvocation } from "../../src/verify/report-run.js";
import { readPackageTestSetup } from "../../src/verify/test-reports/package-setup.js";
import { distBuildProject } from "../support/build-step-project.js";
import {
  breakClamp,
  brokenThenFixed,
  fixSlug,
  fixtureBaseline,
  fixtureRegression,
} from "../support/fixture-regression.js";
import type { FixtureRepo } from "./runner-fixture.js";

/** The lane resets its verification checkout between runs: what base's run wrote is gone. */
const resetBuild = async (repo: FixtureRepo) => {
  for (const written of ["dist", "order.txt"])
    await rm(join(repo.dir, written), { recursive: true, force: true });
};

describe("npm's pretest runs before the runner in regression's runs", () => {
  it("base gets a named report, a break of clamp fails by name, the correct fix passes", async ({
    onTestFinished,
  }) => {
    const repo = await distBuildProject(
      { pretest: "node scripts/build.js", test: "mocha 'test/**/*.test.js'" },
      onTestFinished,
    );
    const base = await fixtureBaseline(repo, "npm test");
    expect(base.error).toBeNull();
    expect(base.invocation?.preScripts).toEqual([{ name: "pretest", script: "node scripts/build.js" }]);
    expect(base.report?.complete).toBe(true);
    expect(base.report?.tests.map((t) => t.key)).toContain('["test/math.test.js","math clamp","works"]');

    const { broken, fixed } = await brokenThenFixed(repo, "npm test", base, () => resetBuild(repo));
    expect(broken.overall_result).toBe("fail");
    expect(broken.summary).toContain("test/math.test.js > math clamp > works");

    expect(fixed.overall_result, fixed.summary).toBe("pass");
    expect(fixed.native_payload).toMatchObject({
      ran_command: expect.stringMatching(/ sh -c 'node scripts\/build\.js' && /),
    });
  }, 240_000);

  it("a test script that delegates (`npm run test:unit`) runs `pretest` and `pretest:unit`, in npm's order", async ({
    onTestFinished,
  }) => {
    const repo = await distBuildProject(
      {
        pretest: "node -e \"require('fs').writeFileSync('order.txt', 'pretest ')\"",
        test: "npm run test:unit",
        "pretest:unit":
          "node -e \"require('fs').appendFileSync('order.txt', 'pretest:unit')\" && node scripts/build.js # built",
        "test:unit": "mocha 'test/**/*.test.js'",
      },
      onTestFinished,
      { ".gitignore": "node_modules\ndist/\norder.txt\n" },
    );
    const base = await fixtureBaseline(repo, "npm test");
    expect(base.report?.complete, base.error ?? "").toBe(true);
    expect(base.invocation?.preScripts).toHaveLength(2);
    expect(await readFile(join(repo.dir, "order.txt"), "utf8")).toBe("pretest pretest:unit");
    await resetBuild(repo);
    await fixSlug(repo);
    await breakClamp(repo);
    const broken = await fixtureRegression(repo, "npm test", base);
    expect(broken.summary).toContain("test/math.test.js > math clamp > works");
  }, 240_000);

  // Stop 47: npm's own options in the delegation (`npm run -s`) hid the runner, and the suite was
  // judged from its console with no pre script pinned.
  it("a delegation with npm's options (`npm run -s test:unit`) is followed too: a named report", async ({
    onTestFinished,
  }) => {
    const repo = await distBuildProject(
      {
        test: "npm run -s test:unit",
        "pretest:unit": "node scripts/build.js",
        "test:unit": "mocha 'test/**/*.test.js'",
      },
      onTestFinished,
    );
    const base = await fixtureBaseline(repo, "npm test");
    expect(base.invocation?.runner, base.error ?? "").toBe("mocha");
    expect(base.invocation?.preScripts).toEqual([{ name: "pretest:unit", script: "node scripts/build.js" }]);
    expect(base.report?.complete).toBe(true);
    const { broken, fixed } = await brokenThenFixed(repo, "npm test", base, () => resetBuild(repo));
    expect(broken.summary).toContain("test/math.test.js > math clamp > works");
    expect(fixed.overall_result, fixed.summary).toBe("pass");
  }, 240_000);

  it("on the console path (the script names its own reporter) the script's --bail is undone after the pretest", async ({
    onTestFinished,
  }) => {
    const repo = await distBuildProject(
      { pretest: "node scripts/build.js", test: "mocha --bail --reporter tap 'test/**/*.test.js'" },
      onTestFinished,
      // Sorts first and is broken on base: with the bail, nothing after it ran on either side.
      {
        "test/a-network.test.js": `const assert = require("node:assert");
describe("network", () => { it("fetches", () => assert.fail("offline")); });
`,
      },
    );
    const base = await fixtureBaseline(repo, "npm test");
    expect(base.invocation).toBeNull();
    expect(base.consoleCommand).toMatch(
      /^npm_node_execpath=\S+ (?:npm_execpath=\S+ )?npm_lifecycle_event='pretest' sh -c 'node scripts\/build\.js' && mocha --no-bail /,
    );
    const { broken, fixed } = await brokenThenFixed(repo, "npm test", base, () => resetBuild(repo));
    expect(broken.overall_result, broken.summary).toBe("fail");
    expect(fixed.overall_result, fixed.summary).toBe("pass");
  }, 240_000);
});

describe("readPackageTestSetup: the scripts npm runs before the test script", () => {
  const setup = (scripts: Record<string, string>) => readPackageTestSetup(JSON.stringify({ scripts }));

  it("pretest, then pre<name> of each npm hop; none for a yarn or pnpm hop", () => {
    expect(setup({ test: "mocha" })?.npmPreScripts).toEqual([]);
    expect(setup({ pretest: "tsc", test: "mocha" })?.npmPreScripts).toEqual([
      { name: "pretest", script: "tsc" },
    ]);
    expect(
      setup({
        pretest: "a",
        test: "npm run unit",
        preunit: "b",
        unit: "npm run-script deep",
        predeep: "c",
        deep: "mocha",
      }),
    ).toMatchObject({
      script: "mocha",
      npmPreScripts: [
        { name: "pretest", script: "a" },
        { name: "preunit", script: "b" },
        { name: "predeep", script: "c" },
      ],
    });
    expect(setup({ test: "yarn unit", preunit: "b", unit: "mocha" })?.npmPreScripts).toEqual([]);
  });

  // Review, stop 47 (attack 51): whether yarn or pnpm runs a pre script depends on their version
  // and config; a script reading npm's variables gets them only from npm.
  it("says when running the script would not be what the package manager runs", () => {
    expect(setup({ test: "mocha" })?.notAsThePackageManagerRuns).toBeNull();
    expect(setup({ test: "yarn unit", preunit: "b", unit: "mocha" })?.notAsThePackageManagerRuns).toBe(
      "`yarn unit` may or may not run `preunit` (yarn 1 and pnpm with enable-pre-post-scripts do, yarn 2+ and pnpm by default do not)",
    );
    expect(setup({ test: "pnpm unit", unit: "mocha" })?.notAsThePackageManagerRuns).toBeNull();
    // npm's configuration is npm's to give; the package's own variables are given to devflow's runs.
    expect(setup({ test: "mocha --reporter-option $npm_config_color" })?.notAsThePackageManagerRuns).toBe(
      "`mocha --reporter-option $npm_config_color` reads npm's configuration ($npm_config_color), which only npm gives a script",
    );
    expect(
      setup({ pretest: "tsc -p $npm_package_config_tsconfig", test: "mocha" })?.notAsThePackageManagerRuns,
    ).toBeNull();
    expect(
      readPackageTestSetup(
        JSON.stringify({
          name: "p",
          version: "1.0.0",
          config: { spec: "test/**", deep: { a: 1 } },
          engines: { node: ">=20" },
          scripts: { test: "npm run -s unit", unit: "mocha $npm_package_config_spec" },
        }),
      )?.npmEnv,
    ).toEqual({
      npm_package_name: "p",
      npm_package_version: "1.0.0",
      npm_package_config_spec: "test/**",
      npm_package_config_deep_a: "1",
      npm_package_engines_node: ">=20",
      npm_lifecycle_event: "unit",
      npm_command: "run",
    });
  });
});

describe("resolveInvocation: the package command's own pre scripts", () => {
  const packageDir = (scripts: Record<string, string>): string => {
    const dir = mkdtempSync(join(tmpdir(), "devflow-package-command-"));
    writeFileSync(join(dir, "package.json"), JSON.stringify({ scripts }));
    return dir;
  };

  it("`pretest` under `yarn test` or `pnpm test`: the command runs as written (which yarn or pnpm runs it is not known)", () => {
    const dir = packageDir({ pretest: "tsc", test: "mocha" });
    for (const command of ["yarn test", "pnpm test"])
      expect(resolveInvocation(command, dir)).toEqual({
        kind: "none",
        reason: `\`${command}\` may or may not run \`pretest\` (yarn 1 and pnpm with enable-pre-post-scripts do, yarn 2+ and pnpm by default do not)`,
      });
    expect(resolveInvocation("npm test", dir)).toMatchObject({
      kind: "runner",
      invocation: { runner: "mocha", preScripts: [{ name: "pretest", script: "tsc" }] },
    });
    rmSync(dir, { recursive: true, force: true });
  });
});
