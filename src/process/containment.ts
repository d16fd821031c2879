import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, openSync, readdirSync, readSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { systemTool } from "./system-tool.js";

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
  // By the system's path: the spawn would otherwise search the run's PATH (session-25 review).
  const unshare = systemTool("unshare");
  if (unshare === null) return null;
  const candidates = [
    [unshare, "--pid", "--fork", "--kill-child"],
    // Unprivileged: a user namespace that maps only the current user (util-linux 2.38+).
    [unshare, "--user", "--map-current-user", "--pid", "--fork", "--kill-child"],
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
 * A process's start time (proc(5) stat field 22: clock ticks since boot, on the boot-time clock),
 * or null when the text does not parse. Counted from after the command name, which may hold
 * spaces and parentheses of its own. Read from the bytes in place: the scan parses one per
 * process on the machine.
 */
function startTicks(stat: Buffer): number | null {
  const close = stat.lastIndexOf(0x29); // ")"
  if (close < 0) return null;
  let at = close + 2;
  for (let skipped = 0; skipped < 19; skipped++) {
    at = stat.indexOf(0x20, at) + 1; // past the next " "
    if (at === 0) return null;
  }
  let ticks = 0;
  let digits = 0;
  for (; at < stat.length && stat[at] !== 0x20 && stat[at] !== 0x0a; at++, digits++) {
    const digit = (stat[at] as number) - 0x30;
    if (digit < 0 || digit > 9) return null;
    ticks = ticks * 10 + digit;
  }
  return digits > 0 ? ticks : null;
}

/** One read buffer for the scan's /proc files, grown to the largest environment met. */
let procBuffer = Buffer.alloc(16 * 1024);

/**
 * The whole of a /proc file (open, read to the end into the shared buffer, close), or null when
 * it cannot be read (the process exited, or is a kernel thread without an environment). No
 * exception per unreadable file and no new buffer per file: a scan reads one file of every
 * process on the machine, several times per attempt (issue 11).
 */
function readProcFile(path: string, oneLine = false): Buffer | null {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return null;
  }
  try {
    let length = 0;
    for (;;) {
      if (length === procBuffer.length) {
        const bigger = Buffer.alloc(procBuffer.length * 2);
        procBuffer.copy(bigger);
        procBuffer = bigger;
      }
      const n = readSync(fd, procBuffer, length, procBuffer.length - length, null);
      if (n === 0) return procBuffer.subarray(0, length);
      length += n;
      // A stat file is one line: its newline ends it, so no second read is needed to see the end.
      if (oneLine && procBuffer[length - 1] === 0x0a) return procBuffer.subarray(0, length);
    }
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** This process's start time in ticks, read once; null (no age filter) when /proc/self/stat does not parse. */
let ownStart: number | null | undefined;
function ownStartTicks(): number | null {
  if (ownStart === undefined) {
    const self = readProcFile("/proc/self/stat", true);
    ownStart = self === null ? null : startTicks(self);
  }
  return ownStart;
}

/**
 * Pids (as this process sees them) of live, non-zombie processes whose environment carries
 * `marker`. Empty where /proc does not exist (macOS, Windows: see ADR 0020).
 *
 * Only processes younger than devflow's own process are read (ADR 0050, amendment of session 24):
 * a marker is made fresh in this process (newRunMarker) and reaches a process only through the
 * environment of a child this process starts after making it, so every process a run started
 * began after this process did. Both start times come from the same kernel clock in ticks, read
 * in this process's /proc (a time namespace shifts both alike), and the comparison keeps the
 * same tick: no slack is needed. A pid whose stat cannot be read or parsed is read as before
 * (fail closed). Pid reuse adds no miss: a process that takes an old process's pid after its
 * stat was read was started during the scan, which every scan can miss and which is why runs
 * scan again after the first empty scan (run-process.ts, verify/run-command.ts, code.ts).
 */
export function processesWithMarker(marker: string): number[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const needle = Buffer.from(`${RUN_MARKER_ENV}=${marker}\0`);
  const since = ownStartTicks();
  const found: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    if (since !== null) {
      const stat = readProcFile(`/proc/${entry}/stat`, true);
      const started = stat === null ? null : startTicks(stat);
      if (started !== null && started < since) continue;
    }
    const environ = readProcFile(`/proc/${entry}/environ`);
    if (environ === null || !environ.includes(needle)) continue;
    const stat = readProcFile(`/proc/${entry}/stat`, true);
    if (stat !== null && isRunningState(stat.toString("latin1"))) found.push(Number(entry));
  }
  return found;
}

/**
 * The runs started with each marker (several for a builtin coder's tool calls): how many are still
 * going, and whether each that ended proved that nothing it started lives on. Bounded: the oldest
 * proven, finished marker goes first; a marker no longer held here is scanned for, as before.
 */
const markerRuns = new Map<string, { open: number; allProven: boolean }>();
const MARKER_RUNS_KEPT = 1024;

/** runProcess, before it starts a run carrying `marker`. */
export function markedRunStarted(marker: string): void {
  const known = markerRuns.get(marker);
  if (known) {
    known.open++;
    return;
  }
  // Only a proven, finished marker is forgotten: forgetting an unproven one and meeting it again
  // would count its earlier runs as proven (review, stop 36). At most MARKER_RUNS_KEPT proven ones stay.
  if (markerRuns.size >= MARKER_RUNS_KEPT)
    for (const [old, runs] of markerRuns)
      if (runs.open === 0 && runs.allProven) {
        markerRuns.delete(old);
        break;
      }
  markerRuns.set(marker, { open: 1, allProven: true });
}

/**
 * runProcess, once a run carrying `marker` has ended. `provenGone`: the run was PID 1 of its own
 * PID namespace with its own /proc and no capabilities (a mount plan, ADR 0025; through `unshare
 * --fork`, which returns only after waiting for it) and that process exited by itself. The kernel
 * ends a PID namespace with its first process: it kills every other process there and lets the
 * first one's exit complete only once they are all gone, so no process of that run is alive when
 * devflow sees the exit (ADR 0073; marker-scan-proof.test.ts pins it with setsid and double-forked
 * children). A run that was stopped, or died by a signal, or left
 * something in its group is not proven: unshare may have died before its namespace did.
 */
export function markedRunEnded(marker: string, provenGone: boolean): void {
  const known = markerRuns.get(marker);
  if (!known) return;
  known.open = Math.max(0, known.open - 1);
  if (!provenGone) known.allProven = false;
}

/**
 * Whether a process carrying `marker` may still be alive: false only when every run started with
 * it has ended, each proven by its PID namespace. A /proc scan for such a marker can find nothing,
 * and costs ~1 ms per 70 processes on the machine, ~10 times per attempt (issue 11).
 */
export function markedProcessesMayLive(marker: string): boolean {
  const known = markerRuns.get(marker);
  return known === undefined || known.open > 0 || !known.allProven;
}

/**
 * SIGKILLs every process carrying `marker` until none is left or `waitMs` passes; returns the
 * pids still running then (empty: nothing the run started is alive). No scan when the marker's
 * runs are proven to have left nothing (markedProcessesMayLive).
 */
export async function endMarkedProcesses(marker: string, waitMs = 5000): Promise<number[]> {
  if (!markedProcessesMayLive(marker)) return [];
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
