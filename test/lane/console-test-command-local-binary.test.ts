/**
 * Regression (review, stop 44): a test command judged from its console that names a binary of the
 * user's own install (`--test-cmd checkit`, as `ava` or `jest --bail` would be) ended "`checkit` was
 * not found" on base, so the lane could never complete the task, a correct fix included.
 *
 * Cause: the console runs of regression (base and attempt) got the caller's PATH, while the report
 * runs got devflow's bin directory and the checkout's `node_modules/.bin`. Fix: both console runs
 * get the report runs' PATH (src/verify/report-run.ts `runOnConsole`), the installed binaries only
 * through devflow's link to the user's install. Run here through the whole lane, in the mount
 * namespace where it works, so the bin directory devflow adds is reachable there too.
 */
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { coderScript, runLane } from "../support/lane-harness.js";
import {
  attemptEnvelope,
  runnerRepo,
  SLUG_REQUEST,
  SLUG_SEAM,
  SLUG_TASK,
  slugCassette,
  writingCoder,
} from "../support/runner-lane.js";

/** The user's repo with a test runner of its own in its (ignored) node_modules/.bin. */
async function repoWithLocalRunner(): Promise<string> {
  const repo = await runnerRepo("node-test");
  const bin = join(repo, "node_modules", ".bin");
  await mkdir(bin, { recursive: true });
  await writeFile(join(bin, "checkit"), "#!/bin/sh\nexec node --test --test-reporter=tap test/\n");
  await chmod(join(bin, "checkit"), 0o755);
  return repo;
}

const lane = async (script: string) =>
  runLane({
    repo: await repoWithLocalRunner(),
    taskId: SLUG_TASK,
    request: SLUG_REQUEST,
    cassette: slugCassette(SLUG_SEAM["node-test"]),
    coder: coderScript(script),
    lane: { maxJudgeAttempts: 1, commandTimeoutMs: 120_000, testCommand: "checkit" },
  });

/** The correct fix plus `add` broken, so math's green tests fail now. */
const BREAKING = `${writingCoder({}, true)}
import { readFileSync as r, writeFileSync as w } from "node:fs";
w("src/math.js", r("src/math.js", "utf8").replace("return a + b;", "return a - b;"));
`;

describe("a console-judged test command naming a binary of the user's install, through the lane", () => {
  it("completes the correct fix, the suite run on base and on the attempt", async () => {
    const run = await lane(writingCoder({}, true));
    expect(run.error).toBeNull();
    const regression = await attemptEnvelope(run, "regression");
    expect(regression?.overall_result, regression?.summary).toBe("pass");
    // Per test, from the console's TAP, on each side (not by exit code). Since ADR 0086 the summary
    // counts tests, not names: TAP names `math` and `math > works` twice (one per file), so 6 names
    // hold 8 green tests.
    expect(regression?.summary).toContain("all 8 test(s) green on base are still green");
    const record = await run.store.read("iterator_run");
    expect(record?.terminal?.verdict, run.result?.terminal.reason).toBe("completed");
    expect(record?.terminal?.gate).toMatchObject({ result: "pass", caveats: [] });
  }, 240_000);

  it("does not complete a fix that breaks tests green on base", async () => {
    const run = await lane(BREAKING);
    expect(run.error).toBeNull();
    const regression = await attemptEnvelope(run, "regression");
    expect(regression?.overall_result, regression?.summary).toBe("fail");
    expect(regression?.summary).toContain("works");
    const record = await run.store.read("iterator_run");
    expect(record?.terminal?.verdict).not.toBe("completed");
  }, 240_000);
});
