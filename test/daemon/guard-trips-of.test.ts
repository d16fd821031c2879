/**
 * What `guardTripsOf` (src/daemon/guard-trips.ts) reads from a real task's artifacts, for the guards
 * the daemon test (guard-trips-daemon.test.ts: seam_integrity, tamper) does not reach: the real
 * iterate lane (real git, real processes, replayed model) with hostile `command:` coders.
 */
import { describe, expect, it } from "vitest";
import { guardTripsOf } from "../../src/daemon/guard-trips.js";
import { CORRECT_FIX, coderScript, runLane } from "../support/lane-harness.js";
import { runnerRepo, slugLane } from "../support/runner-lane.js";

/** The real fix, plus a file the task's scope (src/csv-import.js, test/**) does not allow. */
const WRITES_OUT_OF_SCOPE = `${CORRECT_FIX}
writeFileSync("NOTES.md", "scratch notes\\n");
`;

/** Neuters node:assert from the module the seam imports (ADR 0028's canary attack). */
const NEUTERING_CODER = `
import { readFileSync, writeFileSync } from "node:fs";
const f = "src/slug.js";
writeFileSync(f, 'import __a from "node:assert";\\nimport __s from "node:assert/strict";\\n' +
  'for (const o of [__a, __s]) for (const k of Object.keys(o)) if (typeof o[k] === "function") o[k] = () => {};\\n' +
  readFileSync(f, "utf8"));
console.log("all tests pass.");
`;

describe("guardTripsOf: the trips a task's artifacts record", () => {
  it("a file outside the task's scope is one scope trip of that attempt", async () => {
    const run = await runLane({ coder: coderScript(WRITES_OUT_OF_SCOPE), lane: { maxJudgeAttempts: 1 } });
    expect(run.error).toBeNull();
    expect(run.result?.terminal.verdict).toBe("exhausted");
    expect(await guardTripsOf(run.store.dir)).toEqual([{ guard: "scope", attempt_id: "attempt-001" }]);
  }, 180_000);

  it("a seam canary that could not fail is a seam_canary trip", async () => {
    const dir = await runnerRepo("node-test", { prefix: "devflow-guard-canary-" });
    const run = await slugLane("node-test", NEUTERING_CODER, { repo: dir });
    expect(run.error).toBeNull();
    expect(run.result?.terminal.verdict).not.toBe("completed");
    expect(await guardTripsOf(run.store.dir)).toContainEqual({
      guard: "seam_canary",
      attempt_id: "attempt-001",
    });
  }, 180_000);

  it("no task record (a read-only ticket, a run that ended before framing): no trips", async () => {
    expect(await guardTripsOf(null)).toEqual([]);
    expect(await guardTripsOf("/nonexistent/devflow-guard-trips")).toEqual([]);
  });
});
