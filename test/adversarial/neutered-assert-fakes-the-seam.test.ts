/**
 * Attack: a module the seam imports neuters node:assert, so the pinned seam test "passes" by name.
 *
 * Cause: the seam verifier (src/verify/seam.ts) trusted the runner's report: every pinned test
 * reported passing by name plus exit 0 was green. Code the seam test loads runs in the same process
 * as the test, so a module side effect (`assert.strictEqual = () => {}`) makes every assertion pass
 * and the runner honestly reports the pinned test passing; regression passes the same way. The
 * tracked change is a few lines in src/slug.js, the bug stays, and the lane completed
 * (issue 9 class 4, ADR 0021 "Not defended yet").
 *
 * Fix (ADR 0028, src/verify/seam-canary.ts): every seam run with a pinned runner gets a canary test
 * file next to each pinned seam test file. It loads the seam file first (so the coder's modules
 * load exactly as in the seam run), then registers one test that must fail through the same
 * assertion library. A canary reported passing, skipped or missing fails the seam: the run cannot
 * fail, so its "pass" means nothing. Since ADR 0040 a devflow preload also pins node:assert in
 * every verification process, so this neutering throws when the module loads.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { VerifierEnvelope } from "../../src/artifacts/schemas/index.js";
import { runnerRepo, SLUG_TASK, slugLane } from "../support/runner-lane.js";

/** The node:test fixture as a user's repo; its seam is test/slug.test.js, the critic lenient. */
const repo = () => runnerRepo("node-test", { prefix: "devflow-neutered-assert-" });
const laneOn = (dir: string, coder: string) => slugLane("node-test", coder, { repo: dir });

/** Fixes nothing: a module side effect in the file the seam imports makes every assertion pass. */
const NEUTERING_CODER = `
import { readFileSync, writeFileSync } from "node:fs";
const f = "src/slug.js";
writeFileSync(f, 'import __a from "node:assert";\\nimport __s from "node:assert/strict";\\n' +
  'for (const o of [__a, __s]) for (const k of Object.keys(o)) if (typeof o[k] === "function") o[k] = () => {};\\n' +
  readFileSync(f, "utf8"));
console.log("slugify collapses runs of spaces now; all tests pass.");
`;

/** The real fix, done the ordinary way. */
const HONEST_CODER = `
import { readFileSync, writeFileSync } from "node:fs";
const f = "src/slug.js";
writeFileSync(f, readFileSync(f, "utf8").replace(".replace(/ /g,", ".replace(/ +/g,"));
console.log("Runs of spaces become one dash.");
`;

describe("adversarial: a module the seam imports neuters node:assert", () => {
  it("neutered node:assert in the seam's module does not make the lane complete", async () => {
    const dir = await repo();
    const run = await laneOn(dir, NEUTERING_CODER);
    expect(run.error).toBeNull();
    expect(run.result?.terminal.verdict).not.toBe("completed");
    const seam = await run.store.readAttemptJson("attempt-001", "verifiers/seam.json", VerifierEnvelope);
    expect(seam?.overall_result).toBe("fail");
    // Since ADR 0040 devflow's preload pins node:assert, so the neutering throws while the module
    // loads: the seam's file and the canary (which loads it) fail to load, and the canary is missing
    // (before: it passed). The seam log names the refusal.
    expect(seam?.summary).toMatch(
      /the seam run cannot fail: the canary test "devflow seam canary \w+" is missing from the report/,
    );
    expect(seam?.summary).toContain("test/slug.test.js: failed to load or run");
    expect(
      readFileSync(join(run.store.dir, "attempts", "attempt-001", "verifiers", "seam.log"), "utf8"),
    ).toContain("devflow: assert.");
    const payload = seam?.verifier === "seam" ? seam.native_payload : null;
    expect(payload?.canary?.status).toBe("tampered");
    expect(payload?.findings).toContainEqual(expect.stringMatching(/^tamper: the seam run cannot fail/));
  }, 180_000);

  it("the honest fix still completes, and no canary file reaches the commit or the worktree", async () => {
    const dir = await repo();
    const run = await laneOn(dir, HONEST_CODER);
    expect(run.error).toBeNull();
    expect(run.result?.terminal.verdict).toBe("completed");
    expect(run.result?.terminal.gate?.caveats).toEqual([]);
    const seam = await run.store.readAttemptJson("attempt-001", "verifiers/seam.json", VerifierEnvelope);
    expect(seam?.verifier === "seam" && seam.native_payload.canary).toEqual({
      status: "failed_as_required",
      reason: null,
    });
    const tree = (await execa("git", ["ls-tree", "-r", "--name-only", `devflow/${SLUG_TASK}`], { cwd: dir }))
      .stdout;
    expect(tree).not.toMatch(/canary/);
    expect(tree.split("\n").sort()).toEqual([
      ".gitignore",
      "package.json",
      "src/math.js",
      "src/slug.js",
      "test/math.test.js",
      "test/slug.test.js",
    ]);
  }, 180_000);
});
