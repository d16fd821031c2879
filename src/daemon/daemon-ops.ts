import { readFileSync } from "node:fs";
import { rename, rm, writeFile } from "node:fs/promises";
import type { DaemonConfig } from "../artifacts/schemas/ticket.js";
import { DevflowError, messageOf } from "../errors/index.js";
import { daemonLogPath, healthEndpointPath } from "../home/daemon-paths.js";
import { devflowVersion } from "../util/version.js";
import { ConfigReloader, configChanges, RESTART_KEYS } from "./config-reload.js";
import { type LoadedDaemonConfig, loadDaemonConfig } from "./daemon-config.js";
import { createDaemonLogger, type DaemonLogger } from "./daemon-log.js";
import { DaemonMetrics } from "./daemon-metrics.js";
import { startHealthServer } from "./health-server.js";
import { queueDepths } from "./queue-depths.js";
import { statusHooksOf } from "./status-hooks.js";
import type { Worker } from "./worker.js";

export interface DaemonOpsOptions {
  root: string;
  loaded: LoadedDaemonConfig;
  worker: Worker;
  /** Where a reloaded config goes besides the worker (the queue's plan-lint, lease window). */
  applyToQueue: (config: DaemonConfig) => void;
  logger: DaemonLogger;
  redact: (text: string) => string;
}

/** What the `daemon` command holds while it runs: the log, the metrics, then the servers. */
export interface DaemonOps {
  log: (line: string, level?: "info" | "warn" | "error") => void;
  metrics: DaemonMetrics;
  /** Starts the reloader and /health once the worker exists. */
  start(worker: Worker): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens the operating side of a daemon that holds its data root's lock (ADR 0054): the JSON log
 * under logs/ (rotated with the live config's limits), the metrics; `start` adds the config
 * reloader and /health. The queue's config is reloaded in place.
 */
export async function openDaemonOps(
  queue: { root: string; config: DaemonConfig },
  format: "human" | "json",
  stderr: (text: string) => void,
  redact: (text: string) => string,
): Promise<DaemonOps> {
  const { root } = queue;
  const logger = createDaemonLogger({
    file: daemonLogPath(root),
    limits: () => ({ maxBytes: queue.config.worker.logMaxBytes, keep: queue.config.worker.logKeepFiles }),
    format,
    stderr,
    redact,
  });
  let worker: Worker | null = null;
  let running: { close(): Promise<void> } | null = null;
  const metrics = new DaemonMetrics({
    version: devflowVersion(),
    depths: () => queueDepths(root),
    running: () => worker?.runningIds.length ?? 0,
    spendToday: async () => (worker ? await worker.spendToday() : null),
  });
  return {
    log: (line, level = "info") => logger.log(level, line),
    metrics,
    async start(w) {
      worker = w;
      // The stamp of the config in force: a change after this point is a reload.
      const loaded = await loadDaemonConfig(root);
      queue.config = loaded.config;
      w.reconfigure(loaded.config);
      running = await startDaemonOps(
        { root, loaded, worker: w, applyToQueue: (c) => (queue.config = c), logger, redact },
        metrics,
      );
    },
    async close() {
      await running?.close();
      logger.close();
    },
  };
}

/**
 * Everything that operates a running daemon (ADR 0054): the config reloader, and `/health` +
 * `/metrics` on 127.0.0.1 with `<root>/health.json` naming the port. A port that cannot be bound
 * is a CONFIG_INVALID error at start (the operator asked for that port).
 */
async function startDaemonOps(
  opts: DaemonOpsOptions,
  metrics: DaemonMetrics,
): Promise<{ close(): Promise<void> }> {
  const { root, worker, logger } = opts;
  let config = opts.loaded.config;
  const reloader = new ConfigReloader({
    root,
    initial: opts.loaded,
    checkEverySeconds: () => config.worker.pollIntervalSeconds,
    apply: (next, previous) => {
      config = next;
      opts.applyToQueue(next);
      worker.reconfigure(next);
      metrics.configReloads.inc({ result: "applied" });
      const changes = configChanges(previous, next);
      const later = changes.filter((c) => RESTART_KEYS.some((key) => c.startsWith(`${key}:`)));
      logger.log("info", `config reloaded${changes.length ? `: ${changes.join(", ")}` : " (no change)"}`, {
        changes,
        ...(later.length ? { needs_restart: later } : {}),
      });
      if (later.length) logger.log("warn", `${later.join(", ")}: takes effect at the next start`);
    },
    refused: (why) => {
      metrics.configReloads.inc({ result: "refused" });
      logger.log("error", `config refused, the previous config stays in force: ${why}`);
    },
  });
  const startedAt = new Date();
  const healthPort = config.worker.healthPort;
  let server: Awaited<ReturnType<typeof startHealthServer>> | null = null;
  if (healthPort !== false) {
    try {
      server = await startHealthServer(
        {
          pid: process.pid,
          version: devflowVersion(),
          startedAt,
          root,
          hooks: statusHooksOf(worker),
          depths: () => queueDepths(root),
          running: () => worker.runningTickets(),
          stopping: () => worker.isStopping,
          config: () => reloader.state(),
          metrics,
          redact: opts.redact,
        },
        healthPort,
      );
    } catch (error) {
      throw new DevflowError(
        "CONFIG_INVALID",
        `cannot serve /health on 127.0.0.1:${healthPort}: ${messageOf(error)} (set worker.healthPort to a free port, 0 for any, or false for none)`,
        { cause: error },
      );
    }
    const url = `http://127.0.0.1:${server.port}`;
    const tmp = `${healthEndpointPath(root)}.${process.pid}.tmp`;
    await writeFile(tmp, `${JSON.stringify({ url, port: server.port, pid: process.pid })}\n`);
    await rename(tmp, healthEndpointPath(root));
    logger.log("info", `serving ${url}/health and ${url}/metrics`, { port: server.port });
  }
  reloader.start();
  return {
    async close() {
      reloader.close();
      if (server) {
        await server.close();
        await removeIfOurs(healthEndpointPath(root));
      }
    },
  };
}

/** health.json goes with its daemon; one written by another daemon since stays. */
async function removeIfOurs(path: string): Promise<void> {
  try {
    const { pid } = JSON.parse(readFileSync(path, "utf8")) as { pid: number };
    if (pid === process.pid) await rm(path, { force: true });
  } catch {
    // absent or unreadable: nothing of ours to remove
  }
}
