/**
 * Regression: SIGTERM during coding let the run commit 50 s later (issue 11, "Signals do not reach
 * the run"). Causes: the signal never reached the process that ran the lane (the bin spawned tsx,
 * which started another node), and inside the run LangGraph gave up on the graph at once while the
 * running node went on in the background, so the lock was released and the command returned while
 * the coder was still being stopped, with "This operation was aborted" and exit 1. Fix: one signal
 * owner (src/cli/signals.ts) aborts the run, the lane waits for the running node to stop its
 * children and starts no other node (defineNode), records `interrupted` in events.jsonl, and the
 * CLI prints the resume command and exits 143.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { SIGNAL_TEST_LAUNCHER, startDevflow } from "../support/devflow-process.js";
import { processesRunning, refs, SLOW_CODER_MS, sleep, slowCoderRun } from "./signal-harness.js";

it("SIGTERM during coding: the coder tree is ended, nothing is committed, the run is resumable and --resume completes", async () => {
  const t = await slowCoderRun("sigterm-coding");
  const refsBefore = refs(t.repo);
  const source = readFileSync(join(t.repo, "src", "csv-import.js"), "utf8");
  expect(processesRunning(t.coderScript).length).toBeGreaterThan(0);

  process.kill(t.run.child.pid as number, "SIGTERM");
  const code = await t.run.exit;
  const stderr = t.run.stderr();
  expect(code, stderr).toBe(143);
  // Past the moment the coder would have applied its fix and devflow would have committed it.
  await sleep(Math.max(0, t.coderStartedAt + SLOW_CODER_MS + 3000 - Date.now()));

  expect(processesRunning(t.coderScript)).toEqual([]);
  expect(refs(t.repo)).toBe(refsBefore);
  expect(readFileSync(join(t.repo, "src", "csv-import.js"), "utf8")).toBe(source);
  expect((await t.store.read("iterator_run"))?.terminal).toBeNull();
  const interrupted = (await t.events()).filter((e) => e.node === "interrupted");
  expect(interrupted).toHaveLength(1);
  expect(interrupted[0]?.detail).toMatchObject({ signal: "SIGTERM" });
  expect(stderr).not.toMatch(/operation was aborted|Abort\b/);
  expect(stderr).toContain("devflow iterate --resume --task-id sigterm-coding ");

  const resumed = startDevflow([...t.args, "--resume"], {}, { launcher: SIGNAL_TEST_LAUNCHER });
  expect(await resumed.exit, resumed.stderr()).toBe(0);
  const run = await t.store.read("iterator_run");
  // What an uninterrupted run of this coder ends with: completed in its first attempt.
  expect(run?.terminal?.verdict).toBe("completed");
  expect(run?.attempts.map((a) => [a.attempt_id, a.verdict])).toEqual([["attempt-001", "pass"]]);
}, 240_000);
