/**
 * Regression (stop 46): a project whose `npm test` builds what its tests load in `pretest` (as
 * `tsc` or a bundler would), through the whole lane with real mocha 10.8.2. The seam builds first
 * (`node scripts/build.js && npx mocha test/slug.test.js`), as an Observer that read the package
 * would write it.
 *
 * Cause: regression ran the runner of base's test script itself, without npm's `pretest`. On the
 * clean verification checkout there was no build, mocha wrote no report, and base was judged from
 * the console. Through the lane every attempt was then rejected, the correct fix too ("baseline was
 * red and results could not be compared per test"); where the console's lines were read (the unit
 * case, test/reports/npm-pretest-runs-before-the-runner.test.ts) they carry the last title only,
 * seven tests became one key, and a fix that broke `clamp` passed. Fix: base's pre scripts are
 * pinned with the runner invocation and run first (src/verify/npm-pre-scripts.ts `withPreScripts`).
 */
import { describe, expect, it } from "vitest";
import { builtRunnerRepo } from "../support/build-step-project.js";
import { coderScript, runLane } from "../support/lane-harness.js";
import {
  attemptEnvelope,
  SLUG_REQUEST,
  SLUG_TASK,
  slugCassette,
  writingCoder,
} from "../support/runner-lane.js";

const lane = async (script: string) =>
  runLane({
    repo: await builtRunnerRepo("mocha"),
    taskId: SLUG_TASK,
    request: SLUG_REQUEST,
    // An Observer that knows the build step: the seam builds, then runs the seam file.
    cassette: slugCassette("node scripts/build.js && npx mocha test/slug.test.js"),
    coder: coderScript(script),
    lane: { maxJudgeAttempts: 1, commandTimeoutMs: 120_000, testCommand: "npm test" },
  });

/** The correct fix plus clamp broken (it returns its input): math's clamp test fails now. */
const BREAKING = `${writingCoder({}, true)}
import { readFileSync as r, writeFileSync as w } from "node:fs";
w("src/math.js", r("src/math.js", "utf8").replace("return Math.min(Math.max(value, low), high);", "return value;"));
`;

describe("a project whose pretest builds what its tests load, through the lane", () => {
  it("completes the correct fix, judged by mocha's report on both sides", async () => {
    const run = await lane(writingCoder({}, true));
    expect(run.error).toBeNull();
    const regression = await attemptEnvelope(run, "regression");
    expect(regression?.overall_result, regression?.summary).toBe("pass");
    expect(regression?.summary).toContain("by full test identity, mocha report");
    const record = await run.store.read("iterator_run");
    expect(record?.terminal?.verdict, run.result?.terminal.reason).toBe("completed");
  }, 300_000);

  it("does not complete a fix that breaks clamp, and names the test", async () => {
    const run = await lane(BREAKING);
    expect(run.error).toBeNull();
    const regression = await attemptEnvelope(run, "regression");
    expect(regression?.overall_result, regression?.summary).toBe("fail");
    expect(regression?.summary).toContain("test/math.test.js > math clamp > works");
    const record = await run.store.read("iterator_run");
    expect(record?.terminal?.verdict).not.toBe("completed");
  }, 300_000);
});
