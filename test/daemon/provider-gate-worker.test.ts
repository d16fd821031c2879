import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DaemonConfig, type TicketRecord } from "../../src/artifacts/schemas/ticket.js";
import { FsTicketQueue } from "../../src/daemon/fs-queue.js";
import type { Worker } from "../../src/daemon/worker.js";
import type { TicketRunner } from "../../src/daemon/worker-types.js";
import {
  completedEnd,
  liveFramerCall,
  queueFiles,
  readRecord,
  readResult,
  revisions,
  startTestWorker,
  waitFor,
} from "../support/daemon-harness.js";
import {
  errorAnswer,
  type OpenAIServer,
  type ScriptedResponse,
  startOpenAIServer,
  toolCallAnswer,
} from "../support/openai-server.js";
import { type QueueSandbox, queueSandbox, submitTicket } from "../support/queue-harness.js";

/**
 * The provider gate in the worker (ADR 0052): a real file queue in a temp data root, runners that
 * make a real live model call (the live gateway) to a scripted loopback OpenAI-compatible server,
 * whose GET /v1/models answers the readiness probe. Proves: nothing is claimed while the gate is
 * closed; the ticket that tripped it goes back to the inbox with its retry counter untouched and a
 * fresh not_before; a latch stays until a config reload or a successful session; a probe failure
 * closes the gate before any claim.
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

const KEY = "sk-test-gate-0123456789abcdef";
const OK = toolCallAnswer("frame", { summary: "fine" });

const completed = completedEnd({ reason: "ok" });
const submit = (queue: FsTicketQueue, repo: string) =>
  submitTicket(box, queue, `repo: ${JSON.stringify(box.repo(repo))}`);
const modelCall = (url: string) => liveFramerCall(url, KEY);
const startWorker = (config: DaemonConfig, queue: FsTicketQueue, runner: TicketRunner, probe = true) =>
  startTestWorker(box, {
    queue,
    config,
    runner,
    endpoint: probe && server ? { baseURL: server.url, apiKey: KEY } : null,
  });

const config = (worker: Record<string, unknown> = {}) =>
  DaemonConfig.parse({
    worker: { pollIntervalSeconds: 0.05, backoffBaseSeconds: 0.2, maxTransientRetries: 2, ...worker },
  });

const chatRequests = () => (server?.requests ?? []).filter((r) => r.path === "/v1/chat/completions");
const probes = () => (server?.requests ?? []).filter((r) => r.method === "GET" && r.path === "/v1/models");
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function serve(chat: ScriptedResponse[], models: ScriptedResponse[] = []): Promise<string> {
  server = await startOpenAIServer(chat, { models });
  return server.url;
}

describe("the provider gate in the worker", () => {
  it("a 401 latches auth_error: the ticket returns to the inbox untouched, nothing is claimed until a config reload", async () => {
    const url = await serve([errorAnswer(401, "Incorrect API key provided"), OK, OK]);
    const cfg = config();
    const queue = new FsTicketQueue(box.root, cfg);
    const first = await submit(queue, "a");
    const second = await submit(queue, "b");
    const w = startWorker(cfg, queue, async () => {
      await modelCall(url);
      return completed;
    });
    try {
      await waitFor("the latch", () => w.worker.gateSnapshot().state === "auth_error", 30_000);
      await waitFor("the requeue", () => queueFiles(box, "inbox").length === 2, 30_000);
      const probesAtLatch = probes().length;
      await pause(800); // 16 polls
      expect(w.claims.map((c) => c.id)).toEqual([first]);
      expect(chatRequests()).toHaveLength(1);
      expect(probes()).toHaveLength(probesAtLatch); // no probe while closed either
      expect(queueFiles(box, "processing")).toEqual([]);
      expect(w.worker.gateSnapshot()).toMatchObject({ state: "auth_error", until: null });
      expect(w.worker.gateSnapshot().reason).toContain("MODEL_AUTH");

      const record = readRecord(box, first);
      expect(record).toMatchObject({ state: "inbox", retry_count: 0 });
      const claimedAt = w.claims[0]?.at ?? 0;
      expect(Date.parse(record.not_before as string)).toBeGreaterThanOrEqual(claimedAt - 1000);
      expect(record.reason).toContain("provider gate auth_error (retry counter untouched");
      expect(w.lines.some((l) => l.startsWith("provider gate closed: auth_error (latched"))).toBe(true);

      w.worker.resetGate("config reload");
      await waitFor("both tickets done", () => queueFiles(box, "done").length === 2, 30_000);
      expect(readResult(box, first)).toMatchObject({ status: "completed", retry_count: 0 });
      expect(readResult(box, second)).toMatchObject({ status: "completed", retry_count: 0 });
      expect(w.worker.gateSnapshot().state).toBe("open");
      expect(w.lines).toContain("provider gate open: claiming again");
    } finally {
      await w.stop();
    }
  }, 60_000);

  it("a successful session of another running ticket reopens a latch", async () => {
    const url = await serve([errorAnswer(401, "key revoked"), OK, OK]);
    const cfg = config({ maxConcurrent: 2 });
    const queue = new FsTicketQueue(box.root, cfg);
    const slow = await submit(queue, "slow");
    const tripping = await submit(queue, "trip");
    let worker: Worker | undefined;
    let slowDoneAt = 0;
    const w = startWorker(cfg, queue, async ({ claim }) => {
      if (claim.id === slow) {
        // Calls only once the other ticket has latched the gate, so its success is what reopens it.
        await waitFor("the latch", () => worker?.gateSnapshot().state === "auth_error", 30_000);
        await modelCall(url);
        slowDoneAt = Date.now();
        return completed;
      }
      await modelCall(url);
      return completed;
    });
    worker = w.worker;
    try {
      await waitFor("both tickets done", () => queueFiles(box, "done").length === 2, 40_000);
      const again = w.claims.filter((c) => c.id === tripping);
      expect(again).toHaveLength(2);
      expect(again[1]?.at ?? 0).toBeGreaterThanOrEqual(slowDoneAt); // not before the success
      expect(readResult(box, tripping)).toMatchObject({ status: "completed", retry_count: 0 });
      expect(w.worker.gateSnapshot().state).toBe("open");
    } finally {
      await w.stop();
    }
  }, 60_000);

  it("a 429 with Retry-After pauses claiming for the server's wait; the ticket keeps its retry counter", async () => {
    const url = await serve([
      {
        status: 429,
        error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" },
        headers: { "retry-after": "1" },
      },
      OK,
    ]);
    const cfg = config();
    const queue = new FsTicketQueue(box.root, cfg);
    const id = await submit(queue, "r");
    const w = startWorker(cfg, queue, async () => {
      await modelCall(url);
      return completed;
    });
    try {
      await waitFor("the ticket done", () => queueFiles(box, "done").length === 1, 30_000);
      const [limited, answered] = chatRequests();
      expect((answered?.at ?? 0) - (limited?.at ?? 0)).toBeGreaterThanOrEqual(950);
      const between = probes().filter((p) => p.at > (limited?.at ?? 0) && p.at < (limited?.at ?? 0) + 900);
      expect(between).toEqual([]); // closed: not even probed
      const requeue = revisions<TicketRecord>(box, id, "ticket_record").find(
        (r) => r.state === "inbox" && r.not_before !== null,
      );
      expect(requeue?.retry_count).toBe(0);
      const wait = Date.parse(requeue?.not_before as string) - Date.parse(requeue?.updated_at as string);
      expect(wait).toBeGreaterThanOrEqual(900);
      expect(wait).toBeLessThanOrEqual(1200);
      expect(readResult(box, id)).toMatchObject({ status: "completed", retry_count: 0 });
      expect(w.lines.some((l) => /^provider gate closed: rate_limited until /.test(l))).toBe(true);
    } finally {
      await w.stop();
    }
  }, 60_000);

  it("a 500 closes the gate for one retry interval and stays on the bounded transient path (retry_count + 1)", async () => {
    const url = await serve([errorAnswer(500, "internal error"), OK]);
    const cfg = config({ backoffBaseSeconds: 0.5, backoffMaxSeconds: 0.5 });
    const queue = new FsTicketQueue(box.root, cfg);
    const id = await submit(queue, "o");
    const w = startWorker(cfg, queue, async () => {
      await modelCall(url);
      return completed;
    });
    try {
      await waitFor("the ticket done", () => queueFiles(box, "done").length === 1, 30_000);
      expect(readResult(box, id)).toMatchObject({ status: "completed", retry_count: 1 });
      expect(w.lines.some((l) => /^provider gate closed: outage_backoff until /.test(l))).toBe(true);
    } finally {
      await w.stop();
    }
  }, 60_000);

  it("the readiness probe: a 401 on GET /models closes the gate before any claim, no model call spent", async () => {
    await serve([], [errorAnswer(401, "Incorrect API key provided")]);
    const cfg = config();
    const queue = new FsTicketQueue(box.root, cfg);
    const id = await submit(queue, "p");
    const w = startWorker(cfg, queue, async () => completed);
    try {
      await waitFor("the latch", () => w.worker.gateSnapshot().state === "auth_error", 30_000);
      await pause(500);
      expect(w.claims).toEqual([]);
      expect(chatRequests()).toEqual([]);
      expect(probes()).toHaveLength(1);
      expect(readRecord(box, id)).toMatchObject({ state: "inbox", retry_count: 0, not_before: null });
      expect(w.worker.gateSnapshot().reason).toContain("readiness probe GET");
    } finally {
      await w.stop();
    }
  }, 60_000);

  it("probes only when there is eligible work, and is skipped (and says so) without a live endpoint", async () => {
    await serve([]);
    const cfg = config();
    const queue = new FsTicketQueue(box.root, cfg);
    const idle = startWorker(cfg, queue, async () => completed);
    await pause(400);
    await idle.stop();
    expect(probes()).toEqual([]); // an empty queue is not probed

    await submit(queue, "s");
    const offline = startWorker(cfg, queue, async () => completed, false);
    try {
      await waitFor("the ticket done", () => queueFiles(box, "done").length === 1, 30_000);
      expect(probes()).toEqual([]);
      expect(offline.lines).toContain(
        "readiness probe skipped: no live model endpoint configured (replayed or offline runs)",
      );
    } finally {
      await offline.stop();
    }
  }, 60_000);
});
