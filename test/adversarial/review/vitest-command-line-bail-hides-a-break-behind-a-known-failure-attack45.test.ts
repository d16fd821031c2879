/**
 * Hostile review (attack 45, of ADR 0083): FALSE COMPLETION where ADR 0083 says "it fails closed".
 *
 * Attack: a vitest project whose test script is `vitest run --bail=1` (the stop on the command line)
 * and whose base has one test already failing in devflow's runs (a test that needs the network:
 * devflow's confinement has none), in a file vitest runs first. The coder fixes the seam and
 * breaks `clamp`, checked after that failure. Regression says "no regressions".
 *
 * Cause: src/verify/test-reports/vitest.ts `runEveryTest.refusedWith` keeps a command's own
 * `--bail`, and src/verify/report-run.ts `withEveryTestRun` then runs the command unchanged. ADR 0083
 * ("Still not undone ... a rejection remains possible there (it fails closed)") and src/verify/README.md
 * assume a stop on both sides can only cost a rejection. It does not: base's run stops at the known
 * failure, and so does every attempt's run, at the same place. Every test after it is skipped or
 * absent on both sides, so compare-reports.ts never sees them, whatever the attempt did to them. (A
 * failure that precedes the seam's is what makes the stop symmetric; with the seam's test first the
 * result is ADR 0080's false rejection instead.) The same holds for pytest's `--sw` when devflow's
 * plugin does not load, and for any stop the project's own test code asks for.
 *
 * Realism: `vitest run --bail=1` is an ordinary CI script, and a test that needs the network (or
 * any test the project already knows is broken) is ordinary in a red base. `cache: false` and
 * `fileParallelism: false` in the config only make vitest's file order deterministic here (largest
 * file first); with the default results cache the file that failed before also runs first.
 *
 * Fixed (stop 44): the command's own `--bail` is taken out of vitest's arguments and `--bail=0`
 * appended (`runEveryTest.replaces`, src/verify/test-reports/every-test-run.ts). The case was
 * pinned with `it.fails` until then.
 *
 * Run: VITEST_MAX_WORKERS=1 npx vitest run test/adversarial/review/vitest-command-line-bail-hides-a-break-behind-a-known-failure-attack45.test.ts
 */

import { describe, expect, it } from "vitest";
import type { FixtureRepo } from "../../reports/runner-fixture.js";
import {
  breakClamp,
  fixSlug,
  fixtureBaseline,
  fixtureProject,
  fixtureRegression,
} from "../../support/fixture-regression.js";

/** Runs first (the largest file): a test that needs the network, then one of clamp. */
const NETWORK_TESTS = `import { describe, expect, it } from "vitest";
import { clamp } from "../src/math.js";
${"// The mirror's client: these tests talk to the package mirror over the network.\n".repeat(20)}
describe("mirror", () => {
  it("needs the network", () => expect.fail("offline"));
  it("clamps the retry count", () => expect(clamp(5, 0, 3)).toBe(3));
});
`;

const DETERMINISTIC = "cache: false, fileParallelism: false";

const project = (config: string, onTestFinished: (fn: () => Promise<void>) => void) =>
  fixtureProject(
    "vitest",
    {
      "vitest.config.js": `export default { test: { ${config} } };\n`,
      "test/aa-mirror.test.js": NETWORK_TESTS,
    },
    onTestFinished,
  );

/** The hostile attempt: the seam's fix, and clamp broken. */
async function fixAndBreakClamp(repo: FixtureRepo): Promise<void> {
  await fixSlug(repo);
  await breakClamp(repo);
}

describe.concurrent("vitest `--bail` on the command line, a known failure first (attack 45)", () => {
  it("control: bail from the config is undone (--bail=0), and the break of clamp fails regression", async ({
    onTestFinished,
  }) => {
    const repo = await project(`${DETERMINISTIC}, bail: 1`, onTestFinished);
    const b = await fixtureBaseline(repo, "vitest run");
    expect(b.report?.complete, b.error ?? "no complete report").toBe(true);
    await fixAndBreakClamp(repo);
    const e = await fixtureRegression(repo, "vitest run", b);
    expect(e.overall_result).toBe("fail");
    expect(e.summary).toContain("clamp");
  });

  it("`vitest run --bail=1`: the same break of clamp fails regression", async ({ onTestFinished }) => {
    const repo = await project(DETERMINISTIC, onTestFinished);
    const b = await fixtureBaseline(repo, "vitest run --bail=1");
    expect(b.report?.complete, b.error ?? "no complete report").toBe(true);
    await fixAndBreakClamp(repo);
    const e = await fixtureRegression(repo, "vitest run --bail=1", b);
    // Before the fix: pass, "no regressions: all 0 test(s) green on base are still green".
    expect(e.overall_result, e.summary).toBe("fail");
  });
});
