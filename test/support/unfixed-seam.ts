import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { SeamEnvelope } from "../../src/artifacts/schemas/verifier-envelope.js";
import { checkSeamRedOnBase, runSeamVerifier } from "../../src/verify/seam.js";
import { type FixtureRunner, makeFixtureRepo } from "../reports/runner-fixture.js";

const TIMEOUT = 120_000;

/**
 * The seam attacks' run (attacks 55b, 57): the runner's fixture, its seam (`npm test`,
 * test/slug.test.js) checked red on base, then `sideEffect` put in front of src/slug.js, whose bug
 * stays, and the seam verifier run on that. `seam` is null when base was not red.
 */
export async function unfixedSeamWith(
  runner: FixtureRunner,
  sideEffect: string | null,
  onTestFinished: (fn: () => Promise<void>) => void,
): Promise<{ base: Awaited<ReturnType<typeof checkSeamRedOnBase>>; seam: SeamEnvelope | null }> {
  const repo = await makeFixtureRepo(runner);
  onTestFinished(() => repo.cleanup());
  const base = await checkSeamRedOnBase({
    cwd: repo.dir,
    command: "npm test",
    timeoutMs: TIMEOUT,
    logPath: join(repo.outside, "base.log"),
  });
  if (!base.red) return { base, seam: null };
  const path = join(repo.dir, "src/slug.js");
  await writeFile(path, (sideEffect ?? "") + (await readFile(path, "utf8")));
  const seam = await runSeamVerifier({
    worktree: repo.dir,
    seam: { command: "npm test", files: ["test/slug.test.js"] },
    expectedGreenCondition: null,
    timeoutMs: TIMEOUT,
    logPath: join(repo.outside, "seam.log"),
    attemptId: "attempt-001",
    tests: base.tests,
    invocation: base.invocation,
  });
  return { base, seam };
}
