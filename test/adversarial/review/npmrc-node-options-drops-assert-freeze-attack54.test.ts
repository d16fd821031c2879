/**
 * Attack 54d (review of af1237b, ADR 0088): FALSE COMPLETION. ADR 0040 pins node:assert in every
 * verification run with a preload passed through NODE_OPTIONS (`--import=…assert-freeze.mjs`, with
 * the assertion ledger's preloads); "assertions neutered in regression's processes" is one of the
 * attacks it closed. A run the package manager starts (ADR 0088) gets that NODE_OPTIONS, but npm
 * REPLACES NODE_OPTIONS for every script when the project's `.npmrc` sets `node-options`
 * (`node-options=--max-old-space-size=4096` is a common line; pnpm has the same setting). Base's
 * own, unchanged `.npmrc` then switches devflow's preloads off for regression: no finding (the file
 * did not change), and before ADR 0088 devflow ran the pinned script itself, so npm's
 * `node-options` never reached it.
 *
 * Real npm and real mocha: base's `.npmrc` has `node-options=--max-old-space-size=4096` and a
 * setting the test script reads (`$npm_config_mocha_timeout`, so ADR 0088 hands `npm test` to npm).
 * The attempt fixes slugify, breaks clamp, and in src/math.js (program code, not a test) makes
 * `assert.strictEqual` a no-op.
 *
 * Observed: regression passes ("no regressions ... by full test identity, mocha report").
 * Control: the same attempt on a base whose .npmrc has no node-options fails (the freeze throws
 * when math.js loads: its tests go missing).
 * Should: devflow's preloads reach every node process of the run whatever the package manager's
 * configuration says: e.g. give the package manager `npm_config_node_options` (and pnpm's
 * equivalent) = base's node-options + devflow's preloads for the run, or refuse/route such a
 * project elsewhere, and check after the run that the preload ran (the ledger's way).
 *
 * Fixed (stop 48), was `it.fails`: every verification run gives the package manager
 * `npm_config_node_options` = the project's (else the user's) configured node-options followed by
 * devflow's preloads (src/verify/package-manager-node-options.ts); the environment comes before
 * `.npmrc`, so npm's NODE_OPTIONS keeps the freeze.
 */
import { describe, expect, it } from "vitest";
import { commitAll } from "../../support/build-step-project.js";
import {
  breakClamp,
  editFile,
  fixSlug,
  fixtureBaseline,
  fixtureProject,
  fixtureRegression,
} from "../../support/fixture-regression.js";

async function project(npmrc: string, onTestFinished: (fn: () => Promise<void>) => void) {
  const repo = await fixtureProject(
    "mocha",
    {
      "package.json": JSON.stringify({
        name: "fixture-mocha",
        private: true,
        scripts: { test: "mocha --timeout $npm_config_mocha_timeout 'test/**/*.test.js'" },
        devDependencies: { mocha: "10.8.2" },
      }),
      ".npmrc": npmrc,
    },
    onTestFinished,
  );
  await commitAll(repo.dir, "npm settings");
  return repo;
}

/** The attempt: slugify fixed, clamp broken, node:assert's strictEqual neutered from program code. */
async function brokenWithNeuteredAssert(
  repo: Awaited<ReturnType<typeof project>>,
  base: Awaited<ReturnType<typeof fixtureBaseline>>,
) {
  await fixSlug(repo);
  await breakClamp(repo);
  await editFile(
    repo,
    "src/math.js",
    "function add(a, b) {",
    'require("node:assert").strictEqual = () => {};\n\nfunction add(a, b) {',
  );
  return fixtureRegression(repo, "npm test", base);
}

describe("attack 54d: base's .npmrc node-options switch devflow's assert freeze off in ADR 0088's run", () => {
  it("a neutered node:assert must not let a broken clamp pass when base's .npmrc sets node-options", async ({
    onTestFinished,
  }) => {
    const repo = await project(
      "mocha-timeout=5000\nnode-options=--max-old-space-size=4096\n",
      onTestFinished,
    );
    const base = await fixtureBaseline(repo, "npm test");
    expect(base.error, base.error ?? "").toBeNull();
    expect(base.invocation?.packageManager?.command).toBe("npm test");
    const run = await brokenWithNeuteredAssert(repo, base);
    console.log("attack54d:", run.overall_result, run.summary);
    expect(run.overall_result, run.summary).toBe("fail");
  }, 240_000);

  it("(control) without node-options in base's .npmrc the freeze holds and the attempt fails", async ({
    onTestFinished,
  }) => {
    const repo = await project("mocha-timeout=5000\n", onTestFinished);
    const base = await fixtureBaseline(repo, "npm test");
    expect(base.error, base.error ?? "").toBeNull();
    expect(base.invocation?.packageManager?.command).toBe("npm test");
    const run = await brokenWithNeuteredAssert(repo, base);
    expect(run.overall_result).toBe("fail");
  }, 240_000);
});
