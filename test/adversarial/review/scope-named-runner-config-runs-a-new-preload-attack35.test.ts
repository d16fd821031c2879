/**
 * Regression (review of stop 35; older than that stop's change). Cause: a runner configuration the
 * task's scope names exactly may change (regression allows it), and the seam's evidence held only
 * the setup files the base's configuration names. A coder left src/slug.js buggy, added a preload
 * under src/ that patches String.prototype.replace, and pointed the scope-named configuration at it
 * (mocha's `require` in package.json; vitest's `setupFiles` in vitest.config.js): the seam and the
 * suite passed and the lane completed (the opened-files check saw a program file). First fix (stop
 * 35): setup files the attempt's configuration names were read as evidence; a second review showed
 * a configuration can do much more than name a setup file. Fix (ADR 0074): the seam is judged with
 * base's copy of every test configuration file the attempt changed (seamTreeAt,
 * src/lanes/iterate/lane/verification-checkout.ts), so the preload never runs with it.
 * Control: the correct fix with a harmless change to the scope-named package.json completes, with a
 * caveat naming the changed configuration.
 * Real mocha and vitest, real repos, the real lane with `command:` coders and a lenient critic.
 */
import { describe, expect, it } from "vitest";
import { ensureRunnerInstalled } from "../../reports/runner-fixture.js";
import { attemptEnvelope, runnerRepo, SLUG_SEAM, seamLane, writingCoder } from "../../support/runner-lane.js";

/** A preload that makes `.replace(/ /g, …)` collapse runs of whitespace: the seam's bug hidden, not fixed. */
const PRELOAD = [
  "const replace = String.prototype.replace;",
  "String.prototype.replace = function (pattern, by) {",
  "  return replace.call(this, pattern instanceof RegExp && pattern.source === ' ' ? /\\s+/g : pattern, by);",
  "};",
];

/** package.json as the fixture has it, with `extra` merged in (the coder's edit of a scope-named file). */
function packageJsonWith(runner: "mocha" | "vitest", extra: Record<string, unknown>): string[] {
  const base =
    runner === "mocha"
      ? {
          name: "fixture-mocha",
          private: true,
          scripts: { test: "mocha 'test/**/*.test.js'" },
          devDependencies: { mocha: "10.8.2" },
        }
      : {
          name: "fixture-vitest",
          private: true,
          type: "module",
          scripts: { test: "vitest run" },
          devDependencies: { vitest: "4.1.12" },
        };
  return JSON.stringify({ ...base, ...extra }, null, 2).split("\n");
}

const REFUSED = "judged with base's test configuration: the attempt's changes to";

/** The lane on a fresh `runner` fixture with the slug seam, the coder `files` and the scope `scope`. */
async function slugLaneWithScope(runner: "mocha" | "vitest", coder: string, scope: string[]) {
  await ensureRunnerInstalled(runner);
  const run = await seamLane(
    await runnerRepo(runner),
    SLUG_SEAM[runner],
    ["test/slug.test.js"],
    coder,
    scope,
  );
  expect(run.error).toBeNull();
  return { run, record: await run.store.read("iterator_run") };
}

async function expectSetupRefused(
  runner: "mocha" | "vitest",
  files: Record<string, string[]>,
  scope: string[],
) {
  const { run, record } = await slugLaneWithScope(runner, writingCoder(files), scope);
  expect(record?.terminal?.verdict, record?.terminal?.reason).toBe("exhausted");
  const seam = await attemptEnvelope(run, "seam");
  expect(seam?.overall_result).toBe("fail");
  expect(seam?.summary).toContain(REFUSED);
  const configs = Object.keys(files).filter((f) => f !== "src/preload.js");
  expect(seam?.verifier === "seam" && seam.native_payload.test_config_from_base).toEqual(configs);
}

describe("a runner configuration the scope names is no way to run a new preload with the seam", () => {
  it("mocha: package.json's `require` pointed at a new src/preload.js", { timeout: 300_000 }, async () => {
    await expectSetupRefused(
      "mocha",
      {
        "src/preload.js": PRELOAD,
        "package.json": packageJsonWith("mocha", { mocha: { require: ["./src/preload.js"] } }),
      },
      ["src/", "package.json"],
    );
  });

  it("vitest: vitest.config.js's `setupFiles` pointed at a new src/preload.js", {
    timeout: 300_000,
  }, async () => {
    await expectSetupRefused(
      "vitest",
      {
        "src/preload.js": PRELOAD,
        "vitest.config.js": ["export default { test: { setupFiles: ['./src/preload.js'] } };"],
      },
      ["src/", "vitest.config.js"],
    );
  });

  it("the correct fix with a harmless edit of the scope-named package.json completes", {
    timeout: 300_000,
  }, async () => {
    const coder = writingCoder({ "package.json": packageJsonWith("mocha", { description: "slugs" }) }, true);
    const { run, record } = await slugLaneWithScope("mocha", coder, ["src/", "package.json"]);
    expect(record?.terminal?.verdict, record?.terminal?.reason).toBe("completed");
    const seam = await attemptEnvelope(run, "seam");
    expect(seam?.verifier === "seam" && seam.native_payload.test_config_from_base).toEqual(["package.json"]);
    // The seam ran with base's package.json; the suite with the attempt's, which the caveat says.
    expect(record?.terminal?.gate?.caveats).toEqual([
      { verifier: "scope", caveat: expect.stringContaining("the attempt changed test configuration") },
    ]);
  });
});
