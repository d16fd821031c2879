import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { DaemonMetrics } from "./daemon-metrics.js";
import type { QueueDepths } from "./queue-depths.js";
import type { DaemonStatusHooks } from "./status-hooks.js";

/** A running ticket as /health shows it. */
export interface RunningTicket {
  id: string;
  since: string;
  /** The repository key (canonical path, or the URL with credentials redacted). */
  repo: string | null;
}

export interface HealthSources {
  pid: number;
  version: string;
  startedAt: Date;
  root: string;
  hooks: DaemonStatusHooks;
  depths: () => Promise<QueueDepths>;
  running: () => RunningTicket[];
  stopping: () => boolean;
  config: () => { path: string | null; loaded_at: string; last_error: string | null };
  metrics: DaemonMetrics;
  /** Applied to every response body. */
  redact: (text: string) => string;
}

/** The body of `GET /health`. */
export async function healthReport(src: HealthSources) {
  const spend = await src.hooks.spendToday();
  return {
    status: src.stopping() ? "stopping" : "running",
    pid: src.pid,
    version: src.version,
    started_at: src.startedAt.toISOString(),
    uptime_seconds: Math.round((Date.now() - src.startedAt.getTime()) / 1000),
    data_root: src.root,
    gate: src.hooks.gateSnapshot(),
    queue: await src.depths(),
    running: src.running(),
    // Unknown is null, never 0: an unwired or incomplete ledger must not read as "nothing spent".
    spend_today: spend ?? { usd: null, known: false, detail: "unknown: no spend ledger wired" },
    config: src.config(),
  };
}

/**
 * `GET /health` (JSON) and `GET /metrics` (Prometheus text) on 127.0.0.1 only (ADR 0054);
 * anything else is 404. Resolves once listening; `port` 0 takes any free port (see `.port`).
 */
export async function startHealthServer(
  src: HealthSources,
  port: number,
): Promise<{ port: number; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    answer(src, req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, "application/json", JSON.stringify({ error: String(error) }), src);
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function answer(src: HealthSources, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? "/").split("?")[0];
  if (req.method === "GET" && path === "/health")
    return send(res, 200, "application/json", `${JSON.stringify(await healthReport(src))}\n`, src);
  if (req.method === "GET" && path === "/metrics")
    return send(res, 200, src.metrics.registry.contentType, await src.metrics.scrape(), src);
  send(
    res,
    404,
    "application/json",
    `${JSON.stringify({ error: "not found", routes: ["GET /health", "GET /metrics"] })}\n`,
    src,
  );
}

function send(res: ServerResponse, status: number, type: string, body: string, src: HealthSources): void {
  res.writeHead(status, { "content-type": type, "cache-control": "no-store" });
  res.end(src.redact(body));
}
