import { join } from "node:path";
import { logsDir } from "./data-root.js";

/**
 * Paths of operating the daemon (ADR 0054), beside data-root.ts's queue paths:
 *
 *   <root>/config.json | config.yaml | config.yml   the daemon's config (at most one of them)
 *   <root>/health.json                              `{url, port, pid}` of a running daemon's /health
 *   <root>/logs/daemon.log, daemon.log.<n>          JSON log lines, rotated by size
 */
export const DAEMON_CONFIG_NAMES = ["config.json", "config.yaml", "config.yml"] as const;
export const daemonConfigCandidates = (root: string): string[] =>
  DAEMON_CONFIG_NAMES.map((name) => join(root, name));
export const healthEndpointPath = (root: string): string => join(root, "health.json");
export const daemonLogPath = (root: string): string => join(logsDir(root), "daemon.log");
