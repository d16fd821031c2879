import { existsSync, renameSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DaemonConfig, type TicketRecord } from "../../src/artifacts/schemas/ticket.js";
import { FsTicketQueue } from "../../src/daemon/fs-queue.js";
import { withoutVerification } from "../../src/daemon/ticket-request.js";
import { transientBackoffMs } from "../../src/daemon/transient.js";
import { Worker } from "../../src/daemon/worker.js";
import type { TicketRunner } from "../../src/daemon/worker-types.js";
import { DevflowError } from "../../src/errors/index.js";
import { stopReason } from "../../src/process/stop-signal.js";
import {
  completedEnd,
  queueFiles,
  readRecord,
  readResult,
  revisions,
  sandboxPerTest,
  waitFor,
} from "../support/daemon-harness.js";
import { submitTicket } from "../support/queue-harness.js";

/**
 * The worker in-process on a real file queue, with scripted runners: how a run's end is
 * classified (transient → requeue with backoff, anything else → failed/ with a terminal record). The real lane is exercised by daemon-process.test.ts.
 */
const box = sandboxPerTest();

const config = (worker: Record<string, unknown> = {}) =>
  DaemonConfig.parse({
    worker: {
      pollIntervalSeconds: 0.05,
      recoverIntervalSeconds: 60,
      backoffBaseSeconds: 0.2,
      backoffMaxSeconds: 0.4,
      maxTransientRetries: 2,
      ...worker,
    },
  });

const submit = (queue: FsTicketQueue, frontmatter: string) => submitTicket(box, queue, frontmatter);

/** Runs a worker until `done()` holds, then stops it; returns its log lines. */
async function runUntil(queue: FsTicketQueue, cfg: DaemonConfig, runner: TicketRunner, done: () => boolean) {
  const lines: string[] = [];
  const worker = new Worker({
    root: box.root,
    queue,
    config: cfg,
    runner,
    log: (l) => lines.push(l),
    random: () => 0.5,
  });
  const running = worker.run();
  await waitFor("the worker's end state", done, 60_000);
  worker.stop(stopReason("SIGTERM", null));
  await running;
  return lines;
}

const throwing =
  (make: () => unknown, calls: { n: number }): TicketRunner =>
  async () => {
    calls.n++;
    throw make();
  };

describe("the daemon's worker", () => {
  it("requeues a transient endpoint failure (MODEL_SERVER) with retry_count+1 and a backoff in not_before, then fails it after maxTransientRetries", async () => {
    const cfg = config();
    const queue = new FsTicketQueue(box.root, cfg);
    const id = await submit(queue, `repo: ${JSON.stringify(box.repo("r"))}`);
    const calls = { n: 0 };
    const error = () =>
      new DevflowError("MODEL_SERVER", "the endpoint answered 502", {
        details: { role: "framer", status: 502 } as never,
      });
    const lines = await runUntil(
      queue,
      cfg,
      throwing(error, calls),
      () => queueFiles(box, "failed").length === 1,
    );
    expect(calls.n).toBe(3); // the first run and maxTransientRetries (2) retries
    const requeues = revisions<TicketRecord>(box, id, "ticket_record").filter(
      (r) => r.state === "inbox" && r.retry_count > 0,
    );
    expect(requeues.map((r) => r.retry_count)).toEqual([1, 2]);
    for (const r of requeues) {
      // Backoff base 0.2 s doubling, capped at 0.4 s, jitter 0.5 → half to full of the ceiling.
      const wait = Date.parse(r.not_before as string) - Date.parse(r.updated_at);
      expect(wait).toBeGreaterThanOrEqual(r.retry_count === 1 ? 100 : 200);
      expect(wait).toBeLessThanOrEqual(r.retry_count === 1 ? 250 : 450);
    }
    expect(readResult(box, id)).toMatchObject({ status: "failed", verdict: "error", retry_count: 2 });
    expect(readResult(box, id).reason).toContain("transient MODEL_SERVER after 2 retries");
    expect(lines.filter((l) => l.startsWith(`requeued ${id}`))).toHaveLength(2);
  }, 90_000);

  // MODEL_AUTH used to be the first half of this test (→ failed/ at once); since the provider gate
  // (ADR 0052) it latches the gate and requeues the ticket untouched: provider-gate-worker.test.ts.
  it("does not retry a failure whose code is not transient, whatever its text says (a plain Error saying 503)", async () => {
    const cfg = config();
    const queue = new FsTicketQueue(box.root, cfg);
    const calls = { n: 0 };
    const text = await submit(queue, `repo: ${JSON.stringify(box.repo("b"))}`);
    const lines = await runUntil(
      queue,
      cfg,
      throwing(() => new Error("503 Service Unavailable: connection reset"), calls),
      () => queueFiles(box, "failed").length === 1,
    );
    expect(calls.n).toBe(1);
    expect(readRecord(box, text).retry_count).toBe(0);
    expect(lines.some((l) => l.startsWith("provider gate closed"))).toBe(false);
  }, 90_000);

  // "finalizes audit, investigate and question tickets as failed, unsupported" lived here until
  // those kinds ran on the insight lane (ADR 0057): test/daemon/read-only-tickets.test.ts.
  it("heartbeats the lease while a ticket runs", async () => {
    const cfg = config({ heartbeatSeconds: 0.1 });
    const queue = new FsTicketQueue(box.root, cfg);
    const id = await submit(queue, `repo: ${JSON.stringify(box.repo("r"))}`);
    const seen: { started: string; beat: string }[] = [];
    const runner: TicketRunner = async ({ claim }) => {
      await new Promise((r) => setTimeout(r, 600));
      const lease = (await queue.get(claim.id))?.lease;
      if (lease) seen.push({ started: lease.started_at, beat: lease.heartbeat_at });
      return completedEnd({ reason: "ok" });
    };
    await runUntil(queue, cfg, runner, () => queueFiles(box, "done").length === 1);
    expect(seen).toHaveLength(1);
    expect(Date.parse(seen[0]?.beat ?? "") - Date.parse(seen[0]?.started ?? "")).toBeGreaterThanOrEqual(300);
    expect(readResult(box, id).status).toBe("completed");
  }, 60_000);

  it("a run whose claim was recovered by someone else is stopped and records nothing (LEASE_LOST)", async () => {
    const cfg = config({ heartbeatSeconds: 0.1 });
    const queue = new FsTicketQueue(box.root, cfg);
    const id = await submit(queue, `repo: ${JSON.stringify(box.repo("r"))}`);
    let aborted = false;
    const runner: TicketRunner = async ({ claim, signal }) => {
      // Another process recovers the claim (its rename back to the inbox) while this run goes on.
      renameSync(claim.ticketPath, join(box.root, "queue", "inbox", `${claim.id}.md`));
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
      aborted = true;
      throw signal.reason;
    };
    const lines = await runUntil(queue, cfg, runner, () => aborted);
    expect(lines.some((l) => l.startsWith(`lost ${id}`))).toBe(true);
    expect(existsSync(join(box.root, "data", "tickets", id, "ticket_result.json"))).toBe(false);
    expect(queueFiles(box, "done")).toEqual([]);
    expect(queueFiles(box, "failed")).toEqual([]);
  }, 60_000);

  it("asks the lane for the ticket's body without its Verification section", () => {
    const body =
      "Fix the cart.\n\n## Verification\n```bash\nnpm test\n## not a heading\n```\n\n## Notes\nKeep it small.\n";
    expect(withoutVerification(body)).toBe("Fix the cart.\n\n## Notes\nKeep it small.\n");
  });

  it("backs off exponentially up to the cap, with jitter over the upper half", () => {
    expect(transientBackoffMs(1, 30, 900, () => 0)).toBe(15_000);
    expect(transientBackoffMs(1, 30, 900, () => 1)).toBe(30_000);
    expect(transientBackoffMs(3, 30, 900, () => 1)).toBe(120_000);
    expect(transientBackoffMs(10, 30, 900, () => 1)).toBe(900_000);
  });

  /**
   * Regression (review of stop 18): one error from the queue (a full disk, a stray file) ended the
   * worker's loop while the tickets it had started kept running, heartbeating and holding the data
   * root's lock. Fix: each poll's steps are logged on failure and tried again at the next poll; a
   * stray `processing/` file whose id is no ticket id is not taken for a claim at all.
   */
  it("regression: a poll whose claim throws is logged and the next poll still claims and finishes the ticket", async () => {
    const cfg = config();
    const queue = new FsTicketQueue(box.root, cfg);
    const id = await submit(queue, `repo: ${JSON.stringify(box.repo("p"))}`);
    let failures = 1;
    const realClaim = queue.claim.bind(queue);
    queue.claim = async (options) => {
      if (failures-- > 0) throw new Error("ENOSPC: no space left on device, write");
      return realClaim(options);
    };
    const calls = { n: 0 };
    const lines = await runUntil(
      queue,
      cfg,
      throwing(() => new Error("the coder crashed"), calls),
      () => queueFiles(box, "failed").length === 1,
    );
    expect(lines.some((l) => /^poll failed, trying again in .*ENOSPC/.test(l))).toBe(true);
    expect(calls.n).toBe(1);
    expect(readResult(box, id)).toMatchObject({ status: "failed" });
  }, 60_000);
});
