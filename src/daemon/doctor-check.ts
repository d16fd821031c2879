import { constants, readFileSync } from "node:fs";
import { access, stat } from "node:fs/promises";
import { hostname } from "node:os";
import { describeError } from "../errors/index.js";
import { daemonLockHolder, dataRoot, healthEndpointPath, processIsGone } from "../home/daemon-paths.js";
import { loadDaemonConfig } from "./daemon-config.js";

/** What `devflow doctor` says about the daemon (ADR 0054); snake_case like the rest of its JSON. */
export interface DaemonCheck {
  name: "data_root" | "lock" | "config" | "health";
  status: "ok" | "warn" | "fail";
  detail: string;
  hint: string | null;
}

export interface DaemonDoctorReport {
  data_root: string;
  checks: DaemonCheck[];
}

export const DEFAULT_HEALTH_TIMEOUT_MS = 2000;

/**
 * The daemon's part of `devflow doctor`: is its data root usable, who holds its lock, is its config
 * valid, and does a running daemon answer on /health (bounded by `timeoutMs`). Read-only: nothing
 * is created. The model endpoint and the coder are doctor's own checks; the daemon uses the same.
 */
export async function checkDaemon(
  opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<DaemonDoctorReport> {
  const root = dataRoot(opts.env ?? process.env);
  const checks = [
    await checkRoot(root),
    checkLock(root),
    await checkConfig(root),
    await checkHealth(root, opts.timeoutMs ?? DEFAULT_HEALTH_TIMEOUT_MS),
  ];
  return { data_root: root, checks };
}

async function checkRoot(root: string): Promise<DaemonCheck> {
  const s = await stat(root).catch((error: NodeJS.ErrnoException) => error);
  if (s instanceof Error) {
    if (s.code === "ENOENT")
      return check(
        "data_root",
        "warn",
        `${root} does not exist yet`,
        "`devflow daemon` or `devflow submit` creates it",
      );
    return check(
      "data_root",
      "fail",
      `cannot read ${root}: ${s.message}`,
      "set DEVFLOW_HOME to a folder you own",
    );
  }
  if (!s.isDirectory())
    return check(
      "data_root",
      "fail",
      `${root} is not a folder`,
      "remove it, or set DEVFLOW_HOME to a folder",
    );
  try {
    await access(root, constants.W_OK | constants.X_OK);
  } catch {
    return check(
      "data_root",
      "fail",
      `not writable: ${root}`,
      "fix its permissions, or set DEVFLOW_HOME to a folder you own",
    );
  }
  return check("data_root", "ok", `${root} exists and is writable`, null);
}

function checkLock(root: string): DaemonCheck {
  const holder = daemonLockHolder(root);
  if (holder === null) return check("lock", "ok", "free: no daemon works on this data root", null);
  const who = holder.owner ? `pid ${holder.owner.pid} on ${holder.owner.host}` : "an unknown owner";
  if (holder.live) return check("lock", "ok", `held by ${who}: a daemon is running`, null);
  if (holder.owner && processIsGone(holder.owner))
    return check(
      "lock",
      "warn",
      `left by ${who}, which is gone`,
      "the next `devflow daemon` takes it over at once",
    );
  return check(
    "lock",
    "warn",
    `held by ${who} (another host, or unknown)`,
    "a second daemon here would exit 0; stop the other one first if it should move",
  );
}

async function checkConfig(root: string): Promise<DaemonCheck> {
  try {
    const { path, config } = await loadDaemonConfig(root);
    const port =
      config.worker.healthPort === false ? "no /health" : `/health port ${config.worker.healthPort || "any"}`;
    return check(
      "config",
      "ok",
      `${path ?? "no config file: the defaults"} (maxConcurrent ${config.worker.maxConcurrent}, ${port})`,
      null,
    );
  } catch (error) {
    return check(
      "config",
      "fail",
      describeError(error),
      "fix the file: `devflow daemon` refuses to start on it, and a running daemon keeps its previous config",
    );
  }
}

async function checkHealth(root: string, timeoutMs: number): Promise<DaemonCheck> {
  let endpoint: { url: string; pid: number };
  try {
    endpoint = JSON.parse(readFileSync(healthEndpointPath(root), "utf8")) as { url: string; pid: number };
  } catch {
    return daemonLockHolder(root)?.live
      ? check("health", "warn", "a daemon is running but names no /health (worker.healthPort false?)", null)
      : check("health", "ok", "no daemon running, so no /health to ask", null);
  }
  if (typeof endpoint.url !== "string" || !/^http:\/\/127\.0\.0\.1:\d+$/.test(endpoint.url))
    return check("health", "fail", `${healthEndpointPath(root)} names no loopback URL`, "restart the daemon");
  if (typeof endpoint.pid === "number" && processIsGone({ pid: endpoint.pid, host: hostname() }))
    return check(
      "health",
      "warn",
      `left by pid ${endpoint.pid}, which is gone`,
      "the next `devflow daemon` replaces it",
    );
  try {
    const res = await fetch(`${endpoint.url}/health`, { signal: AbortSignal.timeout(timeoutMs) });
    const body = (await res.json()) as { status?: string; running?: unknown[]; gate?: { state?: string } };
    if (!res.ok) return check("health", "fail", `${endpoint.url}/health answered ${res.status}`, null);
    return check(
      "health",
      "ok",
      `${endpoint.url}/health answers: ${body.status}, ${body.running?.length ?? 0} running, gate ${body.gate?.state}`,
      null,
    );
  } catch (error) {
    return check(
      "health",
      "fail",
      `${endpoint.url}/health did not answer within ${timeoutMs} ms: ${describeError(error)}`,
      "the daemon may be stuck: look at logs/daemon.log, then restart it",
    );
  }
}

const check = (
  name: DaemonCheck["name"],
  status: DaemonCheck["status"],
  detail: string,
  hint: string | null,
): DaemonCheck => ({ name, status, detail, hint });

const MARK = { ok: "✓", warn: "!", fail: "✗" } as const;
const LABEL: Record<DaemonCheck["name"], string> = {
  data_root: "data root",
  lock: "lock",
  config: "config",
  health: "/health",
};

/** The doctor's "Daemon" section. */
export function renderDaemonSection(report: DaemonDoctorReport): string[] {
  const lines = [`Daemon (data root ${report.data_root})`];
  for (const c of report.checks) {
    lines.push(`  ${MARK[c.status]} ${LABEL[c.name].padEnd(9)}  ${c.detail}`);
    if (c.hint !== null && c.status !== "ok") lines.push(`    → ${c.hint}`);
  }
  lines.push("  (the daemon's model endpoint and coder are the ones checked above)");
  return lines;
}

/** One blocking line per failed daemon check. */
export const daemonBlocking = (report: DaemonDoctorReport): string[] =>
  report.checks.filter((c) => c.status === "fail").map((c) => `daemon ${LABEL[c.name]}: ${c.detail}`);
