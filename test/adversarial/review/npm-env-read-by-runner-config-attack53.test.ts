/**
 * Attack 53f (review of 8921791): FALSE COMPLETION. The npm-environment rule
 * (`notAsThePackageManagerRuns`, src/verify/test-reports/package-setup.ts) reads only the text of
 * the scripts devflow would run (`NPM_ENV`, a `$npm_…` reference). The same variable read by the runner's
 * own config file is not seen: `.mocharc.cjs` takes its `spec` from `process.env.npm_package_config_spec` when set, and
 * package.json's `config.spec` is `test/**\/*.test.js`. npm sets it for `npm test`; devflow runs the
 * pinned `mocha` itself, where it is unset, so mocha falls back to its default spec (`./test`, not
 * recursive) on base and on every attempt: test/unit/ never runs, and a break only it sees passes.
 * Attack 51's hole (`mocha $npm_package_config_spec`), moved one file over.
 *
 * Observed: a break of clamp (tested only in test/unit/math.test.js) passes regression ("no
 * regressions"); `npm test` itself fails (shown below).
 * Should: fail (the npm environment given to the runs devflow makes itself, or such a config
 * leaves the package on its command as written).
 *
 * Fixed (stop 47), was `it.fails`: devflow's runs of the pinned script get npm's variables from base's package.json (`npmEnv`, `npmScriptEnv`), so the config reads the same spec as under `npm test`.
 */
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { commitAll } from "../../support/build-step-project.js";
import {
  breakClamp,
  fixSlug,
  fixtureBaseline,
  fixtureProject,
  fixtureRegression,
} from "../../support/fixture-regression.js";

const PACKAGE_JSON = JSON.stringify({
  name: "fixture-mocha",
  private: true,
  config: { spec: "test/**/*.test.js" },
  scripts: { test: "mocha" },
  devDependencies: { mocha: "10.8.2" },
});

describe("`.mocharc.cjs` reading npm_package_config_spec", () => {
  it("a break of clamp seen only by test/unit/ must not pass", async ({ onTestFinished }) => {
    const repo = await fixtureProject(
      "mocha",
      {
        "package.json": PACKAGE_JSON,
        // The spec package.json configures, when npm says it (else mocha's own default).
        ".mocharc.cjs":
          "const spec = process.env.npm_package_config_spec;\nmodule.exports = spec ? { spec } : {};\n",
      },
      onTestFinished,
    );
    await mkdir(join(repo.dir, "test/unit"));
    const math = await readFile(join(repo.dir, "test/math.test.js"), "utf8");
    await writeFile(join(repo.dir, "test/unit/math.test.js"), math.replaceAll("../src/", "../../src/"));
    await rename(join(repo.dir, "test/math.test.js"), join(repo.dir, "test/unit/.moved"));
    await execa("rm", [join(repo.dir, "test/unit/.moved")]);
    await commitAll(repo.dir, "unit tests in test/unit");
    const base = await fixtureBaseline(repo, "npm test");
    expect(base.error).toBeNull();
    await fixSlug(repo);
    await breakClamp(repo);
    await commitAll(repo.dir, "attempt");
    const run = await fixtureRegression(repo, "npm test", base);
    const npm = await execa("npm", ["test"], { cwd: repo.dir, reject: false, all: true });
    console.log("attack53f:", run.overall_result, run.summary, "| npm test exit:", npm.exitCode);
    expect(npm.exitCode).not.toBe(0);
    expect(npm.all).toContain("clamp");
    expect(run.overall_result, run.summary).toBe("fail");
  }, 240_000);
});
