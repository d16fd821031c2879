/**
 * ADR 0088 through the whole lane: a jest project run with `pnpm test`, whose `pretest` builds
 * the dist/ its tests load and whose `.npmrc` makes pnpm run pre scripts. devflow cannot know
 * whether a pnpm runs `pretest`, so regression runs `pnpm test` as written, with base's scripts in
 * package.json and jest's asking for its report; pnpm builds, jest reports, and each test is
 * compared by name. Stop 47 judged this project from jest's console, where no passing test is
 * named: every attempt, the correct fix included, ended "baseline was red and results could not be
 * compared per test" (attack 53a). Real jest 29, the real lane (mount namespace and checkout
 * overlay where this machine has them), a `pnpm` stub honouring pnpm's rule for pre scripts.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { builtRunnerRepo } from "../support/build-step-project.js";
import { coderScript, runLane } from "../support/lane-harness.js";
import { pnpmFirstOnPath } from "../support/pnpm-stub.js";
import {
  attemptEnvelope,
  fixSlugBreakClamp,
  SLUG_REQUEST,
  SLUG_TASK,
  slugCassette,
  writingCoder,
} from "../support/runner-lane.js";

const lane = async (script: string) =>
  runLane({
    repo: await builtRunnerRepo("jest", { ".npmrc": "enable-pre-post-scripts=true\n" }),
    taskId: SLUG_TASK,
    request: SLUG_REQUEST,
    cassette: slugCassette("node scripts/build.js && npx jest test/slug.test.js"),
    coder: coderScript(script),
    lane: { maxJudgeAttempts: 1, commandTimeoutMs: 120_000, testCommand: "pnpm test" },
  });

describe("`pnpm test` with a pretest build, through the lane (ADR 0088)", () => {
  it("completes the correct fix, compared test by test through pnpm", async ({ onTestFinished }) => {
    await pnpmFirstOnPath(onTestFinished);
    const run = await lane(writingCoder({}, true));
    expect(run.error).toBeNull();
    const regression = await attemptEnvelope(run, "regression");
    expect(regression?.overall_result, regression?.summary).toBe("pass");
    expect(regression?.native_payload).toMatchObject({
      compared: "per_test",
      source: "reporter",
      through_package_manager: expect.stringContaining("run as `pnpm test` with base's scripts"),
    });
    const record = await run.store.read("iterator_run");
    expect(record?.terminal?.verdict, run.result?.terminal.reason).toBe("completed");
    // The user's package.json is as committed (devflow wrote only its verification checkout's).
    expect(JSON.parse(await readFile(join(run.repo, "package.json"), "utf8")).scripts.test).toBe("jest");
  }, 300_000);

  it("does not complete a fix that breaks clamp, and names the test", async ({ onTestFinished }) => {
    await pnpmFirstOnPath(onTestFinished);
    const run = await lane(fixSlugBreakClamp());
    expect(run.error).toBeNull();
    const regression = await attemptEnvelope(run, "regression");
    expect(regression?.overall_result, regression?.summary).toBe("fail");
    expect(regression?.summary).toContain("clamp");
    const record = await run.store.read("iterator_run");
    expect(record?.terminal?.verdict).not.toBe("completed");
  }, 300_000);
});
