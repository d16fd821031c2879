/**
 * Regression: Ctrl-C in `iterate` returned the prompt at once, then printed "This operation was
 * aborted"; the exit code was 130 or 1 depending on which process got the signal, and nothing was
 * recorded (issue 11). Fix: src/cli/signals.ts owns SIGINT: the run stops its children and starts no
 * further node, `interrupted` goes to events.jsonl, the resume command is printed and the exit code
 * is 130; a second Ctrl-C forces the exit (still 130) after SIGKILLing the groups devflow waits on.
 * The SIGINT goes to devflow's whole process group, as a terminal sends it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { SIGNAL_TEST_LAUNCHER, startDevflow } from "../support/devflow-process.js";
import { processesRunning, refs, sleep, slowCoderRun } from "./signal-harness.js";

type Run = Awaited<ReturnType<typeof slowCoderRun>>;

async function expectStoppedAndResumable(t: Run, refsBefore: string, source: string, stderr: string) {
  expect(processesRunning(t.coderScript)).toEqual([]);
  expect(refs(t.repo)).toBe(refsBefore);
  expect(readFileSync(join(t.repo, "src", "csv-import.js"), "utf8")).toBe(source);
  expect((await t.store.read("iterator_run"))?.terminal).toBeNull();
  const interrupted = (await t.events()).filter((e) => e.node === "interrupted");
  expect(interrupted.map((e) => e.detail)).toEqual([{ signal: "SIGINT" }]);
  expect(stderr).not.toMatch(/operation was aborted|Abort\b/);
  expect(stderr).toContain(`→ devflow iterate --resume --task-id ${t.taskId} `);

  const resumed = startDevflow([...t.args, "--resume"], {}, { launcher: SIGNAL_TEST_LAUNCHER });
  expect(await resumed.exit, resumed.stderr()).toBe(0);
  const run = await t.store.read("iterator_run");
  expect(run?.terminal?.verdict).toBe("completed");
  expect(run?.attempts.map((a) => [a.attempt_id, a.verdict])).toEqual([["attempt-001", "pass"]]);
}

it("Ctrl-C during coding, the coder dying of it first: exit 130, nothing committed, recorded, resumable", async () => {
  // Like a coder CLI in the terminal's process group: it dies of the Ctrl-C before devflow reacts.
  const t = await slowCoderRun("ctrl-c-coder-first", `process.on("SIGINT", () => process.exit(130));`);
  const refsBefore = refs(t.repo);
  const source = readFileSync(join(t.repo, "src", "csv-import.js"), "utf8");
  const coders = processesRunning(t.coderScript);
  expect(coders.length).toBeGreaterThan(0);
  for (const pid of coders) process.kill(pid, "SIGINT");
  process.kill(-(t.run.child.pid as number), "SIGINT");
  expect(await t.run.exit, t.run.stderr()).toBe(130);
  await expectStoppedAndResumable(t, refsBefore, source, t.run.stderr());
}, 240_000);

it("a second Ctrl-C forces the exit at once (130) while the coder ignores SIGTERM; the run still resumes", async () => {
  const t = await slowCoderRun("ctrl-c-twice", `process.on("SIGTERM", () => {});`);
  const refsBefore = refs(t.repo);
  const source = readFileSync(join(t.repo, "src", "csv-import.js"), "utf8");
  const pid = t.run.child.pid as number;
  process.kill(-pid, "SIGINT");
  await sleep(500);
  // The first stop waits out the coder's 2 s grace before its SIGKILL; the second one does not wait.
  expect(processesRunning(t.coderScript).length).toBeGreaterThan(0);
  const forcedAt = Date.now();
  process.kill(-pid, "SIGINT");
  expect(await t.run.exit, t.run.stderr()).toBe(130);
  expect(Date.now() - forcedAt).toBeLessThan(1500);
  expect(t.run.stderr()).toContain("stopped at once by SIGINT");
  await sleep(200);
  await expectStoppedAndResumable(t, refsBefore, source, t.run.stderr());
}, 240_000);
