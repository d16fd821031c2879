/**
 * Attack 51c (review of 3db280c, "devflow runs that runner itself"): the script devflow pins and
 * runs itself reads npm's environment, which npm sets for every script it runs and devflow does
 * not (`npm_package_config_*`, `npm_lifecycle_event`, `npm_package_name`…). The runner then runs
 * other tests than `npm test` does. False completion.
 *
 * Attack: package.json (unchanged) keeps its spec in npm's `config` (a documented npm feature):
 * `"config": {"spec": "test/**\/*.test.js"}`, `"test": "npm run -s test:unit"`,
 * `"test:unit": "mocha $npm_package_config_spec"`; the clamp tests live in test/unit/. The attempt
 * fixes slugify and breaks `clamp`.
 *
 * Observed (5fc71b2): the delegation is followed to `mocha $npm_package_config_spec`, a known
 * runner, and devflow runs `sh -c 'mocha $npm_package_config_spec …'` with no npm variables: the
 * word is empty, mocha falls back to its default spec (`./test`, not recursive) and runs
 * test/slug.test.js only, on base and on every attempt. The clamp tests never run; the break passes
 * with a complete mocha report. `npm test` on the same tree runs test/unit/math.test.js and fails.
 *
 * Should: a pinned script that reads `$npm_*` variables is run with the values npm would give it
 * (npm_package_config_* from base's package.json, npm_lifecycle_event = the hop's name, …), or is
 * not run by devflow at all (judged through `npm test` / refused as unpinnable). Not specific to the
 * delegation (a bare `"test": "mocha $npm_package_config_spec"` does the same), but each hop of a
 * delegation changes `npm_lifecycle_event` too, which devflow never sets for the runner.
 * New for the `-s` spelling in 3db280c: at 2c3ffd8 `npm run -s test:unit` was not followed, the
 * package was judged through `npm test` itself, and this test's break was no pass (checked there).
 *
 * Fixed (stop 47), was `it.fails`: devflow's runs of the pinned script get the variables npm gives
 * it from base's package.json (`npmEnv` on the invocation, `npmScriptEnv` in
 * src/verify/npm-pre-scripts.ts). A first fix ran such a package as written instead; attack 53
 * showed that console path rejecting correct jest and vitest fixes and keeping a `--bail`.
 */
import { mkdir, rename } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import {
  breakClamp,
  editFile,
  fixSlug,
  fixtureBaseline,
  fixtureProject,
  fixtureRegression,
} from "../../support/fixture-regression.js";

const PACKAGE = JSON.stringify({
  name: "fixture-mocha",
  private: true,
  config: { spec: "test/**/*.test.js" },
  scripts: { test: "npm run -s test:unit", "test:unit": "mocha $npm_package_config_spec" },
  devDependencies: { mocha: "10.8.2" },
});

describe("a pinned script that reads npm's variables", () => {
  it("`mocha $npm_package_config_spec`: a break of clamp (tested in test/unit/) must not pass", async ({
    onTestFinished,
  }) => {
    const repo = await fixtureProject("mocha", { "package.json": PACKAGE }, onTestFinished);
    await mkdir(join(repo.dir, "test/unit"));
    await rename(join(repo.dir, "test/math.test.js"), join(repo.dir, "test/unit/math.test.js"));
    await editFile(repo, "test/unit/math.test.js", "../src/", "../../src/");
    await execa("git", ["add", "-A"], { cwd: repo.dir });
    await execa("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "unit/"], {
      cwd: repo.dir,
    });
    // npm itself runs the clamp tests on base: they are green there.
    const onBase = await execa("npm", ["test"], { cwd: repo.dir, reject: false, all: true });
    expect(onBase.all).toContain("clamp");
    const base = await fixtureBaseline(repo, "npm test");
    expect(base.report?.complete, base.error ?? "").toBe(true);
    expect(base.invocation?.npmEnv).toMatchObject({
      npm_package_config_spec: "test/**/*.test.js",
      npm_lifecycle_event: "test:unit",
    });
    expect(base.report?.tests.map((t) => t.key)).toContain('["test/unit/math.test.js","math clamp","works"]');
    await fixSlug(repo);
    await breakClamp(repo);
    const run = await fixtureRegression(repo, "npm test", base);
    const npm = await execa("npm", ["test"], { cwd: repo.dir, reject: false, all: true });
    console.log("attack51c:", run.overall_result, run.summary, "| npm test exit:", npm.exitCode);
    expect(npm.exitCode).not.toBe(0);
    expect(run.overall_result, run.summary).not.toBe("pass");
  }, 240_000);
});
