import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DaemonConfig } from "../../src/artifacts/schemas/ticket.js";
import { FsTicketQueue } from "../../src/daemon/fs-queue.js";
import type { TicketRunner } from "../../src/daemon/worker-types.js";
import {
  completedEnd,
  liveFramerCall,
  queueFiles,
  readRecord,
  startTestWorker,
  waitFor,
} from "../support/daemon-harness.js";
import {
  errorAnswer,
  type OpenAIServer,
  startOpenAIServer,
  toolCallAnswer,
} from "../support/openai-server.js";
import { type QueueSandbox, queueSandbox, submitTicket } from "../support/queue-harness.js";

/**
 * Regression: ProviderGuard captured `config.worker` when the worker was built, so a reloaded
 * `worker.probeEnabled`, `probeTimeoutSeconds` or `rateLimit*Seconds` took a daemon restart to
 * apply although ADR 0054 lists them as live keys. Fix: the guard (and the gate's timings) read the
 * worker config through a getter at every use, as BudgetGate reads `dailyBudgetUsd`.
 * Real file queue, a real loopback OpenAI-compatible server, the config swapped by
 * `Worker.reconfigure` (what the daemon's reloader calls on a valid config change).
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

const KEY = "sk-test-reload-0123456789abcdef";
const config = (worker: Record<string, unknown> = {}) =>
  DaemonConfig.parse({ worker: { pollIntervalSeconds: 0.05, ...worker } });

const completed = completedEnd({ reason: "ok" });
const submit = (queue: FsTicketQueue, repo: string) =>
  submitTicket(box, queue, `repo: ${JSON.stringify(box.repo(repo))}`);
const startWorker = (config: DaemonConfig, queue: FsTicketQueue, runner: TicketRunner) =>
  startTestWorker(box, {
    queue,
    config,
    runner,
    endpoint: server ? { baseURL: server.url, apiKey: KEY } : null,
  });

const probes = () => (server?.requests ?? []).filter((r) => r.method === "GET" && r.path === "/v1/models");

describe("the provider guard reads the reloaded worker config", () => {
  it("worker.probeEnabled turned on by a reload probes before the next claim (no restart)", async () => {
    server = await startOpenAIServer([], { models: [errorAnswer(401, "Incorrect API key provided")] });
    const queue = new FsTicketQueue(box.root, config({ probeEnabled: false }));
    const first = await submit(queue, "a");
    const w = startWorker(config({ probeEnabled: false }), queue, async () => completed);
    try {
      await waitFor("the first ticket done", () => queueFiles(box, "done").length === 1, 30_000);
      expect(probes()).toEqual([]);
      expect(w.lines).toContain("readiness probe off (worker.probeEnabled is false)");

      w.worker.reconfigure(config({ probeEnabled: true }));
      const second = await submit(queue, "b");
      await waitFor("the probe's latch", () => w.worker.gateSnapshot().state === "auth_error", 30_000);
      expect(probes()).toHaveLength(1);
      expect(w.claims.map((c) => c.id)).toEqual([first]); // the probe's 401 kept the second ticket in the inbox
      expect(readRecord(box, second)).toMatchObject({ state: "inbox", retry_count: 0 });
    } finally {
      await w.stop();
    }
  }, 60_000);

  it("worker.rateLimitBaseSeconds raised by a reload sets the next rate_limited wait (no restart)", async () => {
    server = await startOpenAIServer([
      {
        status: 429,
        error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" },
      },
      toolCallAnswer("frame", { summary: "fine" }),
    ]);
    const url = server.url;
    const queue = new FsTicketQueue(box.root, config({ rateLimitBaseSeconds: 1 }));
    const w = startWorker(config({ rateLimitBaseSeconds: 1, probeEnabled: false }), queue, async () => {
      await liveFramerCall(url, KEY);
      return completed;
    });
    try {
      w.worker.reconfigure(config({ rateLimitBaseSeconds: 600, probeEnabled: false }));
      const trippedAt = Date.now();
      await submit(queue, "r");
      await waitFor("the rate limit", () => w.worker.gateSnapshot().state === "rate_limited", 30_000);
      const wait = Date.parse(w.worker.gateSnapshot().until as string) - trippedAt;
      expect(wait).toBeGreaterThan(590_000); // 600 s from the reloaded config, not the 1 s it started with
      expect(wait).toBeLessThanOrEqual(631_000);
    } finally {
      await w.stop();
    }
  }, 60_000);
});
