/**
 * Attack 53c (review of 9e4cfee, `recipesOf` in src/verify/test-command-recipes.ts): FALSE
 * COMPLETION. `recipesOf` skips a value only after the options in `VALUE_OPTIONS` (`-r`,
 * `--require`, `--import`, `--loader`, …); any other node option that takes its value as the next
 * word (`--env-file .env.test`, `-C development`, `--conditions development`, `--title build`,
 * `--disable-warning X`, all accepted by node 20 in that form) makes that value "the script", and
 * the real build script is not a recipe. The same for ts-node's `-P`/`--project <file>`, tsx's
 * `--tsconfig <file>`, babel-node's `--presets <list>`, npx's
 * `-p`/`--package <pkg>` (`npx -p tsx tsx x.ts`), and for spellings that reach a JS runner through
 * another program: `cross-env NODE_ENV=x node …`, `env -i node …`, `env -S "node …"`, `/usr/bin/env node …`,
 * `npm exec tsx …`, `pnpm exec tsx …`, `yarn node …`, `bun run x.ts`.
 *
 * Attack (attack 52h's shape): `"pretest": "node --env-file .env.test scripts/build.js"` writes
 * dist/ (loaded by the tests) from src/. The attempt fixes slugify, breaks `clamp` in src/math.js
 * and edits scripts/build.js so dist/math.js has clamp repaired.
 *
 * Observed: regression passes ("no regressions"); scripts/build.js is not suite configuration
 * (`.env.test` is taken for the script). With `node scripts/build.js` the same edit fails (attack
 * 49/52h's control, kept below).
 * Should: scripts/build.js says what the test command runs whatever options precede it (fail closed
 * on an option not known to take no value, or read node's option table), and the other spellings
 * listed are recipes too.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { suiteConfigurationFiles } from "../../../src/verify/regression.js";
import { saysWhatTheTestCommandRuns } from "../../../src/verify/test-command-recipes.js";
import { commitAll, distBuildProject, repairInTheBuild } from "../../support/build-step-project.js";
import { fixtureBaseline } from "../../support/fixture-regression.js";

async function buildScriptHidesBreak(pretest: string, onTestFinished: (fn: () => Promise<void>) => void) {
  const repo = await distBuildProject({ pretest, test: "mocha 'test/**/*.test.js'" }, onTestFinished, {
    ".env.test": "BUILD_TARGET=test\n",
  });
  await commitAll(repo.dir, "base");
  const base = await fixtureBaseline(repo, "npm test");
  expect(base.report?.complete, base.error ?? "").toBe(true);
  const run = await repairInTheBuild(repo, base, "scripts/build.js");
  console.log(`attack53c ${pretest}:`, run.overall_result, run.summary);
  return { run, guarded: suiteConfigurationFiles("npm test", base, repo.dir)("scripts/build.js") };
}

describe("a node option's value taken for the build script (attack 53c)", () => {
  it("`node --env-file .env.test scripts/build.js`: an edit of the build that hides a break must not pass", async ({
    onTestFinished,
  }) => {
    const { run, guarded } = await buildScriptHidesBreak(
      "node --env-file .env.test scripts/build.js",
      onTestFinished,
    );
    expect(run.overall_result, run.summary).toBe("fail");
    expect(guarded).toBe(true);
  }, 240_000);

  it("(control) `node scripts/build.js`: the same edit fails", async ({ onTestFinished }) => {
    const { run, guarded } = await buildScriptHidesBreak("node scripts/build.js", onTestFinished);
    expect(run.overall_result, run.summary).toBe("fail");
    expect(guarded).toBe(true);
  }, 240_000);

  // The same miss for other spellings that run scripts/build.js (or scripts/build.ts), read from a
  // real checkout holding both. Each runs that file: node accepts each option with its value after
  // a space; the others are the programs' documented forms.
  const dir = mkdtempSync(join(tmpdir(), "devflow-attack53c-"));
  mkdirSync(join(dir, "scripts"));
  writeFileSync(join(dir, "scripts/build.js"), "");
  writeFileSync(join(dir, "scripts/build.ts"), "");
  afterAll(() => rm(dir, { recursive: true, force: true }));
  const spellings: Array<[string, string]> = [
    ["node -C development scripts/build.js", "scripts/build.js"],
    ["node --conditions development scripts/build.js", "scripts/build.js"],
    ["node --title build scripts/build.js", "scripts/build.js"],
    ["node --disable-warning ExperimentalWarning scripts/build.js", "scripts/build.js"],
    ["cross-env NODE_ENV=test node scripts/build.js", "scripts/build.js"],
    ["env -i node scripts/build.js", "scripts/build.js"],
    ["/usr/bin/env node scripts/build.js", "scripts/build.js"],
    ["ts-node -P tsconfig.build.json scripts/build.ts", "scripts/build.ts"],
    ["npx -p tsx tsx scripts/build.ts", "scripts/build.ts"],
    ["npm exec tsx scripts/build.ts", "scripts/build.ts"],
    ["pnpm exec tsx scripts/build.ts", "scripts/build.ts"],
    ["yarn node scripts/build.js", "scripts/build.js"],
    ["bun run scripts/build.ts", "scripts/build.ts"],
    ['env -S "node scripts/build.js"', "scripts/build.js"],
    ["tsx --tsconfig tsconfig.build.json scripts/build.ts", "scripts/build.ts"],
    ["babel-node --presets @babel/preset-env scripts/build.js", "scripts/build.js"],
  ];
  for (const [command, file] of spellings)
    it(`\`${command}\` makes ${file} a recipe`, () => {
      expect(saysWhatTheTestCommandRuns(command, dir)(file)).toBe(true);
    });

  it("(control) `node --require ./x scripts/build.js`, `npx --yes tsx scripts/build.ts` are recipes", () => {
    expect(saysWhatTheTestCommandRuns("node --require ./x scripts/build.js", dir)("scripts/build.js")).toBe(
      true,
    );
    expect(saysWhatTheTestCommandRuns("npx --yes tsx scripts/build.ts", dir)("scripts/build.ts")).toBe(true);
  });
});
