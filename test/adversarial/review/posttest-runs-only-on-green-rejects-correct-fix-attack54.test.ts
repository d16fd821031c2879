/**
 * Attack 54c (review of af1237b, ADR 0088): FALSE REJECTION. A run the package manager starts
 * (ADR 0088) runs base's `posttest` (and `post<name>` of the runner's script): npm always, yarn 1
 * always, pnpm with enable-pre-post-scripts. devflow itself never ran a posttest (ADR 0019/0085),
 * and nothing in ADR 0088 says it now does. A posttest only runs when the test script exits 0. Base
 * is red (the seam's test fails there, as for every task), so base's run never reaches it and the
 * baseline shows nothing wrong; the first run that does is the CORRECT fix's, where every test
 * passes. A posttest that writes a tracked file (a coverage badge, a "last green" stamp, regenerated
 * docs: here `scripts/badge.js` rewriting the committed `badge.svg` with the same bytes) then makes
 * the correct fix's run a tamper ("the test run changed tracked file badge.svg"), an error verdict.
 *
 * Real npm and real jest: `npm test` with a script reading `$npm_config_jest_timeout` (the route
 * ADR 0088's own test takes through the package manager).
 *
 * Observed: the correct fix's regression is `error`, "test suite could not run: tamper: the test
 * run changed tracked file badge.svg". Control: without the posttest the same fix passes.
 * Should: the correct fix passes. withBaseScripts already writes the scripts the package manager
 * sees: leave out `posttest` and `post<scriptName>` (devflow never ran them, they cannot change
 * the report legitimately, and base never shows what they do), or run base once more green-less.
 * Leaving them out also takes away a post script's chance to touch the report after the runner.
 *
 * Fixed (stop 48), was `it.fails`: the scripts written for a run through the package manager leave
 * out every `post<name>` (`scriptsForTheRun` in src/verify/package-manager-run.ts), as devflow's
 * own runs do.
 */
import { describe, expect, it } from "vitest";
import { commitAll } from "../../support/build-step-project.js";
import {
  fixSlug,
  fixtureBaseline,
  fixtureProject,
  fixtureRegression,
} from "../../support/fixture-regression.js";

const BADGE = '<svg xmlns="http://www.w3.org/2000/svg"><text>tests passing</text></svg>\n';

async function project(withPosttest: boolean, onTestFinished: (fn: () => Promise<void>) => void) {
  const scripts: Record<string, string> = { test: "jest --testTimeout=$npm_config_jest_timeout" };
  if (withPosttest) scripts.posttest = "node scripts/badge.js";
  const repo = await fixtureProject(
    "jest",
    {
      "package.json": JSON.stringify(
        { name: "fixture-jest", private: true, scripts, devDependencies: { jest: "29.7.0" } },
        null,
        2,
      ),
      ".npmrc": "jest-timeout=20000\n",
      "scripts/badge.js": `require("node:fs").writeFileSync("badge.svg", ${JSON.stringify(BADGE)});\n`,
      "badge.svg": BADGE,
    },
    onTestFinished,
  );
  await commitAll(repo.dir, "badge");
  return repo;
}

describe("attack 54c: base's posttest, never reached on a red base, runs first on the correct fix", () => {
  it("the correct fix must pass although npm runs base's posttest after its green run", async ({
    onTestFinished,
  }) => {
    const repo = await project(true, onTestFinished);
    const base = await fixtureBaseline(repo, "npm test");
    expect(base.error, base.error ?? "").toBeNull();
    expect(base.invocation?.packageManager?.command).toBe("npm test");
    await fixSlug(repo);
    const fixed = await fixtureRegression(repo, "npm test", base, "test/slug.test.js", ["src/slug.js"]);
    console.log("attack54c:", fixed.overall_result, fixed.summary);
    expect(fixed.overall_result, fixed.summary).toBe("pass");
  }, 240_000);

  it("(control) the same project without the posttest: the correct fix passes", async ({
    onTestFinished,
  }) => {
    const repo = await project(false, onTestFinished);
    const base = await fixtureBaseline(repo, "npm test");
    expect(base.error, base.error ?? "").toBeNull();
    await fixSlug(repo);
    const fixed = await fixtureRegression(repo, "npm test", base, "test/slug.test.js", ["src/slug.js"]);
    expect(fixed.overall_result, fixed.summary).toBe("pass");
  }, 240_000);
});
