import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

/**
 * Containment of a confined run (`ProcessRunOptions.confine`, used for coders): every process it
 * starts must be gone before devflow looks at the worktree again. Two layers (ADR 0020):
 *
 * 1. On Linux, when `unshare` works for this user, the command runs as PID 1 of its own PID
 *    namespace (`unshare --pid --fork --kill-child`): when it exits, the kernel kills every other
 *    process of the namespace, `setsid` and double-forked daemons included.
 * 2. Everywhere, the child gets a marker variable (`DEVFLOW_RUN_MARKER`); after the run every
 *    process whose environment carries it is killed (/proc/<pid>/environ on Linux). A process that
 *    cleared its environment escapes this layer, not the first.
 */
export const RUN_MARKER_ENV = "DEVFLOW_RUN_MARKER";

/** A fresh marker for one confined run. */
export const newRunMarker = (): string => `devflow-${process.pid}-${randomBytes(8).toString("hex")}`;

let namespacePrefix: string[] | null | undefined;

/** The argv prefix that puts a command in its own PID namespace, or null where none works. Probed once. */
export function pidNamespacePrefix(): string[] | null {
  if (namespacePrefix !== undefined) return namespacePrefix;
  namespacePrefix = null;
  if (process.platform !== "linux" || process.env.DEVFLOW_NO_PID_NAMESPACE === "1") return null;
  const candidates = [
    ["unshare", "--pid", "--fork", "--kill-child"],
    // Unprivileged: a user namespace that maps only the current user (util-linux 2.38+).
    ["unshare", "--user", "--map-current-user", "--pid", "--fork", "--kill-child"],
  ];
  for (const prefix of candidates) {
    const [file, ...args] = prefix as [string, ...string[]];
    const probe = spawnSync(file, [...args, "/bin/sh", "-c", "exit 7"], { stdio: "ignore", timeout: 5000 });
    if (probe.status === 7) {
      namespacePrefix = prefix;
      break;
    }
  }
  return namespacePrefix;
}

/**
 * Whether no process a confined run started can outlive it: true where runs get their own PID
 * namespace (layer 1). Where only the marker layer works, a leftover that cleared its environment
 * survives, and from /proc a non-dumpable one cannot be told from the user's own agents; an idle
 * coder checkout it may sit in must then never be handed to the next task (session-23 review,
 * reuse-scan-passes-an-earlier-tasks-nondumpable-leftover; ADR 0050).
 */
export const runLeftoversDieWithTheRun = (): boolean => pidNamespacePrefix() !== null;

/** For tests: forget the probe result. */
export function resetContainmentProbe(): void {
  namespacePrefix = undefined;
}

const isRunningState = (stat: string): boolean => {
  const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
  return state !== "Z" && state !== "X";
};

/**
 * Pids (as this process sees them) of live, non-zombie processes whose environment carries
 * `marker`. Empty where /proc does not exist (macOS, Windows: see ADR 0020).
 */
export function processesWithMarker(marker: string): number[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const needle = Buffer.from(`${RUN_MARKER_ENV}=${marker}\0`);
  const found: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`);
      if (!environ.includes(needle)) continue;
      if (isRunningState(readFileSync(`/proc/${entry}/stat`, "utf8"))) found.push(Number(entry));
    } catch {
      // exited while we looked, or not ours to read
    }
  }
  return found;
}

/**
 * SIGKILLs every process carrying `marker` until none is left or `waitMs` passes; returns the
 * pids still running then (empty: nothing the run started is alive).
 */
export async function endMarkedProcesses(marker: string, waitMs = 5000): Promise<number[]> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const alive = processesWithMarker(marker);
    if (alive.length === 0) return [];
    for (const pid of alive) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone meanwhile
      }
    }
    if (Date.now() >= deadline) return processesWithMarker(marker);
    await sleep(25);
  }
}
