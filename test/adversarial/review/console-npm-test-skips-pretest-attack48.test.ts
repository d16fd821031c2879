/**
 * Hostile review (attack 48, of stop 45's `consoleCommand` in src/verify/regression.ts and
 * `everyTestConsoleCommand` in src/verify/report-run.ts): FALSE REJECTION of a correct fix, with a
 * real mocha 10.8.2 run.
 *
 * Attack: an honest project tested with `npm test`, whose test script names its own reporter
 * (`mocha --reporter tap …`, so devflow cannot ask mocha for a report and judges the console) and
 * which has a `pretest` script that prepares what the tests load (here it writes
 * test/generated.json, git-ignored; in real projects a build, a codegen, a fixture download).
 *
 * Why it works: before stop 45 the console runs ran the command as written, `npm test`, and npm ran
 * `pretest` first. Now the console runs base's pinned `test` script itself with the runner's
 * every-test arguments (`mocha --reporter tap … --no-bail --require …`): npm's lifecycle is gone,
 * `pretest` (and `posttest`) never run, on base nor on the attempt. The spec that loads the
 * generated file cannot be required, mocha dies at load naming no test, the baseline "could not
 * run", and every attempt's red console run is rejected ("the suite fails now … and the baseline
 * could not run"). A project whose `posttest` is a check (lint, coverage gate) loses it the same way
 * (a break it catches passes).
 *
 * Suggested fix: when the command is `npm test` (or `npm run X`), keep npm's lifecycle: run the
 * project's `pretest` (and `posttest`) around the every-test script as npm would, or pass the
 * every-test arguments through npm (`npm test -- --no-bail …`, only when the script ends in the
 * runner's own invocation), or fall back to the command as written when the package has
 * pre/post scripts.
 *
 * Fixed (stop 45), was `it.fails`: a package test command (`npm test` and the like) whose package
 * has a `pretest` or `posttest` script kept its command on the console path (no every-test
 * arguments there, so such a project's own stop stayed, as before stop 45).
 * Since stop 46, `npm test`'s pre scripts are pinned with the runner invocation and run first in
 * every report and console run (test/reports/npm-pretest-runs-before-the-runner.test.ts): the
 * console run is `sh -c 'node gen.js' && mocha --no-bail …`, so the stop is undone here too. yarn and
 * pnpm commands keep the stop 45 rule (which of them runs pre scripts is not known).
 */
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  fixSlug,
  fixtureBaseline,
  fixtureProject,
  fixtureRegression,
} from "../../support/fixture-regression.js";

const FILES = {
  "package.json": JSON.stringify(
    {
      name: "fixture-mocha",
      private: true,
      scripts: {
        pretest: "node gen.js",
        test: "mocha --reporter tap 'test/**/*.test.js'",
      },
      devDependencies: { mocha: "10.8.2" },
    },
    null,
    2,
  ),
  ".gitignore": "node_modules\ntest/generated.json\n",
  // Writes only what is missing, as a build step would: the control commits its output.
  "gen.js":
    'const fs = require("node:fs");\nif (!fs.existsSync("test/generated.json")) fs.writeFileSync("test/generated.json", JSON.stringify({ greeting: "hi" }));\n',
  "test/generated.test.js": `const assert = require("node:assert");
const generated = require("./generated.json");
describe("generated", () => {
  it("has its greeting", () => assert.strictEqual(generated.greeting, "hi"));
});
`,
};

describe("attack 48: the console runs of `npm test` skip the project's pretest", () => {
  it("a correct fix of slug passes regression", async ({ onTestFinished }) => {
    const repo = await fixtureProject("mocha", FILES, onTestFinished);
    const base = await fixtureBaseline(repo, "npm test");
    expect(base.invocation).toBeNull();
    expect(base.ran, base.error ?? "").toBe(true);
    expect(base.consoleCommand).toMatch(/ sh -c 'node gen\.js' && mocha --no-bail /);
    await fixSlug(repo);
    // The lane resets its verification checkout between runs, so base's ignored output is gone.
    await rm(join(repo.dir, "test", "generated.json"));
    const envelope = await fixtureRegression(repo, "npm test", base);
    expect(envelope.overall_result, envelope.summary).toBe("pass");
  }, 240_000);

  it("control: the same project with test/generated.json committed (pretest's output already there) passes", async ({
    onTestFinished,
  }) => {
    const repo = await fixtureProject(
      "mocha",
      { ...FILES, ".gitignore": "node_modules\n", "test/generated.json": '{"greeting":"hi"}' },
      onTestFinished,
    );
    const base = await fixtureBaseline(repo, "npm test");
    expect(base.invocation).toBeNull();
    await fixSlug(repo);
    const envelope = await fixtureRegression(repo, "npm test", base);
    expect(envelope.overall_result, envelope.summary).toBe("pass");
  }, 240_000);
});
