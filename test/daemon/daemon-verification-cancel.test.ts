import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  finishedTickets,
  markedCoder,
  queueFiles,
  readRecord,
  readResult,
  sandboxPerTest,
  startDaemon,
  submitChangeTicket,
  waitFor,
  writeWorkerConfig,
} from "../support/daemon-harness.js";
import { startDevflow } from "../support/devflow-process.js";
import { CORRECT_FIX, coderScript, tempDir } from "../support/lane-harness.js";

/**
 * ADR 0056 through a real `devflow daemon` process (bin/devflow.js: `npm run build` first): a
 * ticket's `## Verification` blocks run as extra verifiers and the terminal record lists what each
 * came to; `devflow cancel` of a running ticket stops it through the daemon that holds it.
 */
const box = sandboxPerTest();

const finished = (): number => finishedTickets(box);

describe("devflow daemon: Verification blocks and cancel", () => {
  it("runs a ticket's blocks; a failing one fails the ticket and the terminal record lists each result", async () => {
    writeWorkerConfig(box);
    const { id } = await submitChangeTicket(box, "blocks", coderScript(CORRECT_FIX), {
      verification: ["npm test", 'echo "the export format is not documented"; exit 3'],
      maxIterations: 1,
    });
    const daemon = startDaemon(box);
    await waitFor("the ticket to finish", () => finished() === 1 || daemon.child.exitCode !== null);
    daemon.child.kill("SIGTERM");
    expect(await daemon.exit, daemon.stderr()).toBe(0);
    expect(queueFiles(box, "failed")).toEqual([`${id}.md`]);
    const result = readResult(box, id);
    expect(result).toMatchObject({ status: "failed", verdict: "exhausted" });
    expect(result.reason).toContain("extra_verifiers");
    expect(result.verification).toEqual([
      expect.objectContaining({ code: "npm test", status: "pass", exit_code: 0, attempt_id: "attempt-001" }),
      expect.objectContaining({
        status: "fail",
        exit_code: 3,
        attempt_id: "attempt-001",
        reason: expect.stringContaining("the export format is not documented"),
      }),
    ]);
  }, 600_000);

  it("a ticket with more blocks than worker.maxVerificationBlocks fails before any model call, naming the limit", async () => {
    writeWorkerConfig(box, { maxVerificationBlocks: 1 });
    const { id } = await submitChangeTicket(box, "too-many", coderScript(CORRECT_FIX), {
      verification: ["true", "true"],
    });
    const daemon = startDaemon(box);
    await waitFor("the ticket to finish", () => finished() === 1 || daemon.child.exitCode !== null);
    daemon.child.kill("SIGTERM");
    expect(await daemon.exit, daemon.stderr()).toBe(0);
    const result = readResult(box, id);
    expect(result).toMatchObject({ status: "failed", verdict: "error", attempts: 0 });
    expect(result.reason).toContain("worker.maxVerificationBlocks");
    expect(result.verification.map((v) => v.status)).toEqual(["not_run", "not_run"]);
  }, 300_000);

  it("devflow cancel of a running ticket: its daemon stops the run and records it cancelled, by whom and when", async () => {
    writeWorkerConfig(box, { heartbeatSeconds: 0.5 });
    const starts = join(tempDir(), "starts");
    const { id, repo } = await submitChangeTicket(
      box,
      "cancel-me",
      markedCoder(starts, `await new Promise((r) => setTimeout(r, 60_000));\n${CORRECT_FIX}`),
    );
    const daemon = startDaemon(box);
    await waitFor("the coder to start", () => existsSync(starts) || daemon.child.exitCode !== null);
    const cancel = startDevflow(["cancel", id], { DEVFLOW_HOME: box.root });
    expect(await cancel.exit, cancel.stderr()).toBe(0);
    expect(cancel.stdout()).toContain(`cancel requested for ${id}`);
    const asked = Date.now();
    await waitFor(
      "the cancelled ticket in failed/",
      () => finished() === 1 || daemon.child.exitCode !== null,
      60_000,
    );
    // Well before the coder's 60 s: the heartbeat noticed, the lane's abort path ended the coder.
    expect(Date.now() - asked).toBeLessThan(30_000);
    expect(daemon.child.exitCode).toBeNull(); // the daemon runs on
    expect(queueFiles(box, "failed")).toEqual([`${id}.md`]);
    const result = readResult(box, id);
    expect(result).toMatchObject({ status: "cancelled", verdict: "cancelled", task_id: id, commit: null });
    expect(result.cancelled?.by).toMatch(/@.+ \(pid \d+\)$/);
    expect(result.cancelled?.by).toContain(`pid ${cancel.child.pid}`);
    expect(Date.parse(result.cancelled?.noticed_at ?? "")).toBeGreaterThanOrEqual(
      Date.parse(result.cancelled?.requested_at ?? ""),
    );
    expect(result.reason).toMatch(/^cancelled by .+ at \d{4}-/);
    // The move is first, the record and the request's removal follow it (the folder is the truth).
    const requestPath = join(box.root, "queue", "processing", `${id}.cancel.json`);
    await waitFor(
      "the record and the request",
      () => readRecord(box, id).state === "failed" && !existsSync(requestPath),
      30_000,
    );
    expect(readRecord(box, id)).toMatchObject({ state: "failed", status: "cancelled" });
    // Stopped like a SIGTERM: the task records the interruption, and nothing was committed.
    const events = readFileSync(join(repo, ".devflow", "iterate", id, "events.jsonl"), "utf8");
    expect(events).toContain('"interrupted"');
    const branch = execFileSync("git", ["rev-list", "--count", `main..devflow/${id}`], {
      cwd: repo,
      encoding: "utf8",
    }).trim();
    expect(branch).toBe("0");
    daemon.child.kill("SIGTERM");
    expect(await daemon.exit, daemon.stderr()).toBe(0);
  }, 300_000);
});
