import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DaemonConfig } from "../../src/artifacts/schemas/ticket.js";
import { FsTicketQueue } from "../../src/daemon/fs-queue.js";
import { bookSpend } from "../../src/daemon/spend-ledger.js";
import { Worker } from "../../src/daemon/worker.js";
import type { RunEnd, TicketRunner } from "../../src/daemon/worker-types.js";
import { stopReason } from "../../src/process/stop-signal.js";
import { completedEnd, queueFiles, readResult, sandboxPerTest, waitFor } from "../support/daemon-harness.js";

/**
 * The daily budget (issue 12, ADR 0053): `worker.dailyBudgetUsd` against today's known spend in
 * data/spend.json. A worker on a real file queue with a fake clock and a runner whose every ticket
 * books a scripted $0.60: the cap is crossed mid-queue, claiming pauses, local midnight reopens it,
 * and so does a raised cap (what a config reload does: the check reads the current config).
 */
const box = sandboxPerTest();

const COST = 0.6;

describe("worker.dailyBudgetUsd", () => {
  it("pauses claiming once today's known spend reaches the cap; local midnight reopens it; so does a raised cap", async () => {
    const cfg = DaemonConfig.parse({
      worker: { pollIntervalSeconds: 0.05, recoverIntervalSeconds: 60, dailyBudgetUsd: 1 },
    });
    const queue = new FsTicketQueue(box.root, cfg);
    const ids: string[] = [];
    for (const n of [1, 2, 3, 4, 5]) {
      const path = box.ticket(`t${n}.md`, `repo: ${JSON.stringify(box.repo(`r${n}`))}`, "Do it.\n");
      const submitted = await queue.submit(path, readFileSync(path));
      expect(submitted.findings).toEqual([]);
      ids.push(submitted.id);
      await new Promise((r) => setTimeout(r, 5)); // distinct submission times: claim order is age
    }
    let clock = new Date(2026, 5, 1, 21, 0, 0); // local time
    const ran: string[] = [];
    const runner: TicketRunner = async (run): Promise<RunEnd> => {
      ran.push(run.claim.id);
      // The scripted cost of one ticket run, booked like the lane's steps are.
      await bookSpend(
        box.root,
        [{ ticketId: run.claim.id, role: "frame", knownUsd: COST, costUnknown: false }],
        clock,
      );
      return completedEnd({ taskId: run.claim.id });
    };
    const lines: string[] = [];
    const worker = new Worker({
      root: box.root,
      queue,
      config: cfg,
      runner,
      log: (l) => lines.push(l),
      now: () => clock.getTime(),
    });
    const running = worker.run();
    const done = () => queueFiles(box, "done").length;
    /** Several polls pass with nothing claimed: the pause holds, it is not just slow. */
    const paused = async (count: number) => {
      await new Promise((r) => setTimeout(r, 600));
      expect(ran).toHaveLength(count);
      expect(queueFiles(box, "inbox")).toHaveLength(5 - count);
    };
    try {
      // Day 1: $0.60 < $1 → a second claim; $1.20 ≥ $1 → closed with three tickets waiting.
      await waitFor("two tickets done", () => done() === 2, 60_000);
      await paused(2);
      expect(ran).toEqual(ids.slice(0, 2));
      const tripped = lines.filter((l) => l.startsWith("budget_exhausted"));
      expect(tripped).toHaveLength(1); // reported once when hit, not at every poll
      expect(tripped[0]).toMatch(/today's known spend \$1\.2000 reached worker\.dailyBudgetUsd \$1/);
      expect(tripped[0]).toContain("until local midnight");

      // One second before local midnight: still closed.
      clock = new Date(2026, 5, 1, 23, 59, 59);
      await paused(2);

      // Local midnight: a new day's spend is $0, claims resume until the cap is crossed again.
      clock = new Date(2026, 5, 2, 0, 0, 1);
      await waitFor("four tickets done", () => done() === 4, 60_000);
      await paused(4);
      expect(lines).toContain("budget reopened: a new day (2026-06-02) began");
      expect(lines.filter((l) => l.startsWith("budget_exhausted"))).toHaveLength(2);

      // A raised cap (a config reload replaces the worker's config; the check reads it each time).
      cfg.worker.dailyBudgetUsd = 2;
      await waitFor("five tickets done", () => done() === 5, 60_000);
      expect(lines).toContain("budget reopened: worker.dailyBudgetUsd is now $2 (was $1)");
      expect(ran).toEqual(ids);
    } finally {
      worker.stop(stopReason("SIGTERM", null));
      await running;
    }
    // The terminal record carries the ticket's spend from the ledger, and its budget (none here).
    expect(readResult(box, ids[0] as string)).toMatchObject({
      status: "completed",
      cost_usd: { known_usd: COST, unknown_sessions: 0, sessions: 1 },
      budget_usd: null,
      partial: null,
    });
  }, 120_000);

  it("without dailyBudgetUsd nothing is capped (absent = no cap)", async () => {
    const cfg = DaemonConfig.parse({ worker: { pollIntervalSeconds: 0.05 } });
    expect(cfg.worker.dailyBudgetUsd).toBeUndefined();
    const queue = new FsTicketQueue(box.root, cfg);
    for (const n of [1, 2, 3]) {
      const path = box.ticket(`t${n}.md`, `repo: ${JSON.stringify(box.repo(`r${n}`))}`, "Do it.\n");
      await queue.submit(path, readFileSync(path));
    }
    const runner: TicketRunner = async (run) => {
      await bookSpend(
        box.root,
        [{ ticketId: run.claim.id, role: "frame", knownUsd: 1000, costUnknown: false }],
        new Date(),
      );
      return completedEnd({ attempts: 0 });
    };
    const worker = new Worker({ root: box.root, queue, config: cfg, runner, log: () => undefined });
    const running = worker.run();
    try {
      await waitFor("three tickets done", () => queueFiles(box, "done").length === 3, 60_000);
    } finally {
      worker.stop(stopReason("SIGTERM", null));
      await running;
    }
  }, 120_000);

  it("refuses a cap that is not a positive number of dollars, naming the key", () => {
    for (const bad of [0, -1, "5"]) {
      const parsed = DaemonConfig.safeParse({ worker: { dailyBudgetUsd: bad } });
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]?.path).toEqual(["worker", "dailyBudgetUsd"]);
    }
  });
});
