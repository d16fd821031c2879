import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DaemonConfig } from "../../src/artifacts/schemas/ticket.js";
import { DaemonMetrics } from "../../src/daemon/daemon-metrics.js";
import { FsTicketQueue } from "../../src/daemon/fs-queue.js";
import { startHealthServer } from "../../src/daemon/health-server.js";
import { PLACEHOLDER_GATE } from "../../src/daemon/status-hooks.js";
import type { TicketQueue } from "../../src/daemon/ticket-queue.js";
import { Worker } from "../../src/daemon/worker.js";
import type { RunEnd } from "../../src/daemon/worker-types.js";
import { stopReason } from "../../src/process/stop-signal.js";
import { type OpenAIServer, startOpenAIServer } from "../support/openai-server.js";
import { queueFiles, waitFor } from "./daemon-harness.js";
import { type QueueSandbox, queueSandbox } from "./queue-harness.js";

/**
 * Regressions of issue 12's operating costs (ADR 0054):
 * - `/metrics` read the spend ledger twice per scrape (a collect() in each of the two spend gauges);
 *   fix: `DaemonMetrics.scrape()` reads it once and sets both.
 * - the provider guard's "is there eligible work?" before the readiness probe listed every ticket
 *   of every folder (`queue.list()`, a record read each) on each poll, on top of the claim's own
 *   inbox listing; fix: the probe runs as the claim's `beforeTake`, after the claim's one listing.
 * Real HTTP on 127.0.0.1, a real file queue, a real loopback OpenAI-compatible server.
 */
let box: QueueSandbox;
let server: OpenAIServer | undefined;
beforeEach(() => {
  box = queueSandbox();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  box.cleanup();
});

describe("one read per scrape and per poll", () => {
  it("GET /metrics reads today's spend once and reports both spend gauges from it", async () => {
    let reads = 0;
    const metrics = new DaemonMetrics({
      version: "test",
      depths: async () => ({ inbox: 0, processing: 0, done: 0, failed: 0 }),
      running: () => 0,
      spendToday: async () => {
        reads++;
        return { day: "2026-12-02", usd: 0.25, unknown_sessions: 3 };
      },
    });
    const health = await startHealthServer(
      {
        pid: process.pid,
        version: "test",
        startedAt: new Date(),
        root: box.root,
        hooks: { gateSnapshot: () => PLACEHOLDER_GATE, spendToday: () => null },
        depths: async () => ({ inbox: 0, processing: 0, done: 0, failed: 0 }),
        running: () => [],
        stopping: () => false,
        config: () => ({ path: null, loaded_at: new Date().toISOString(), last_error: null }),
        metrics,
        redact: (t) => t,
      },
      0,
    );
    try {
      const text = await (await fetch(`http://127.0.0.1:${health.port}/metrics`)).text();
      expect(text).toContain('devflow_spend_today_usd{day="2026-12-02"} 0.25');
      expect(text).toContain('devflow_spend_today_unknown_sessions{day="2026-12-02"} 3');
      expect(reads).toBe(1);
      await fetch(`http://127.0.0.1:${health.port}/metrics`);
      expect(reads).toBe(2);
    } finally {
      await health.close();
    }
  });

  it("a poll with eligible work and the readiness probe on lists the queue only through its claim", async () => {
    server = await startOpenAIServer([]);
    const config = DaemonConfig.parse({ worker: { pollIntervalSeconds: 0.05 } });
    const fs = new FsTicketQueue(box.root, config);
    const counted = { list: 0, claim: 0 };
    const queue = new Proxy(fs, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (prop === "list" || prop === "claim")
          return (...args: unknown[]) => {
            counted[prop]++;
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        return typeof value === "function" ? value.bind(target) : value;
      },
    }) as TicketQueue;
    for (const name of ["a", "b"]) {
      const path = box.ticket(`${name}.md`, `repo: ${JSON.stringify(box.repo(name))}`, "Do it.\n");
      expect((await fs.submit(path, readFileSync(path))).findings).toEqual([]);
    }
    const done: RunEnd = {
      status: "completed",
      verdict: "completed",
      reason: "ok",
      taskId: null,
      branch: null,
      commit: null,
      attempts: 1,
      artifactDir: null,
      resumed: false,
    };
    const worker = new Worker({
      root: box.root,
      queue,
      config,
      runner: async () => done,
      log: () => undefined,
      endpoint: { baseURL: server.url, apiKey: "sk-test-one-read-0123456789" },
    });
    const running = worker.run();
    try {
      await waitFor("both tickets done", () => queueFiles(box, "done").length === 2, 30_000);
    } finally {
      worker.stop(stopReason("SIGTERM", null));
      await running;
    }
    const probes = server.requests.filter((r) => r.method === "GET" && r.path === "/v1/models");
    expect(probes).toHaveLength(2); // probed before each of the two claims
    expect(counted.claim).toBeGreaterThanOrEqual(2);
    expect(counted.list).toBe(0); // no listing of every record on top of the claim's
  }, 60_000);
});
