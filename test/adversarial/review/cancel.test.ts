/**
 * Hostile review (session 15) of `devflow cancel` of a running ticket (ADR 0056), through real
 * `devflow daemon` processes (bin/devflow.js: `npm run build` first). DEFENDED since session 16
 * (ADR 0021, "Fourth hostile review"; it was pinned OPEN before).
 *
 * - cancel-noticed-after-the-commit-records-no-commit: the daemon dies right after the lane moved
 *   `devflow/<id>` to the verified commit (kill point commit.ref-moved), the user cancels the
 *   still-claimed ticket, the next daemon recovers it and cancels it before it starts. Cause: the
 *   cancelled record was built with `commit: null, branch: null` while the verified commit stayed on
 *   `devflow/<id>`. Fix: CancelWatch.end reads the task branch (src/daemon/commit-before-cancel.ts)
 *   and records branch and commit when it moved past the task's base, saying so in the reason.
 *
 *     npm run build && npx vitest run test/adversarial/review/cancel.test.ts
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  queueFiles,
  readResult,
  startDaemon,
  submitChangeTicket,
  waitFor,
} from "../../daemon/daemon-harness.js";
import { type QueueSandbox, queueSandbox } from "../../daemon/queue-harness.js";
import { startDevflow } from "../../support/devflow-process.js";
import { CORRECT_FIX, coderScript, demoCassette, writeCassette } from "../../support/lane-harness.js";

let box: QueueSandbox;
beforeEach(() => {
  box = queueSandbox();
});
afterEach(() => box.cleanup());

const finished = (): number => queueFiles(box, "done").length + queueFiles(box, "failed").length;

function writeConfig(worker: Record<string, unknown> = {}): void {
  mkdirSync(box.root, { recursive: true });
  writeFileSync(
    join(box.root, "config.json"),
    JSON.stringify({
      lease_stale_seconds: 5,
      worker: {
        pollIntervalSeconds: 0.2,
        recoverIntervalSeconds: 1,
        graceSeconds: 0,
        heartbeatSeconds: 0.5,
        ...worker,
      },
    }),
  );
}

describe("devflow cancel of a running ticket, attacked", () => {
  it("cancel-noticed-after-the-commit-records-no-commit: the record names the commit already on the branch", async () => {
    writeConfig();
    const { id, repo } = await submitChangeTicket(box, "committed", coderScript(CORRECT_FIX), {
      maxIterations: 1,
    });
    // The first daemon dies right after the lane's compare-and-swap of devflow/<id>.
    const dying = startDevflow(["daemon", "--replay", writeCassette(demoCassette())], {
      DEVFLOW_HOME: box.root,
      DEVFLOW_TEST_KILL_AT: "commit.ref-moved",
    });
    await dying.exit;
    expect(dying.stderr()).toContain("commit.ref-moved");
    const commits = execFileSync("git", ["rev-list", "--count", `main..devflow/${id}`], {
      cwd: repo,
      encoding: "utf8",
    }).trim();
    expect(commits, "the verified commit is on the branch").toBe("1");
    expect(queueFiles(box, "processing").some((f) => f.startsWith(id))).toBe(true);
    const cancel = startDevflow(["cancel", id], { DEVFLOW_HOME: box.root });
    expect(await cancel.exit, cancel.stderr()).toBe(0);
    const daemon = startDaemon(box);
    await waitFor("the ticket to finish", () => finished() === 1 || daemon.child.exitCode !== null, 120_000);
    daemon.child.kill("SIGTERM");
    expect(await daemon.exit, daemon.stderr()).toBe(0);
    const result = readResult(box, id);
    const head = execFileSync("git", ["rev-parse", `devflow/${id}`], { cwd: repo, encoding: "utf8" }).trim();
    // Still cancelled (never completed), but the record names the commit devflow/<id> holds.
    expect(result).toMatchObject({ status: "cancelled", commit: head, branch: `devflow/${id}` });
    expect(result.reason).toContain(
      `already holds ${head.slice(0, 12)}, committed before the cancel was noticed`,
    );
    expect(
      execFileSync("git", ["rev-list", "--count", `main..devflow/${id}`], {
        cwd: repo,
        encoding: "utf8",
      }).trim(),
    ).toBe("1");
  }, 600_000);
});
