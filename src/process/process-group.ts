import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

const POLL_MS = 25;
/** After SIGKILL the kernel needs a moment; a process stuck in uninterruptible I/O may need longer. */
const AFTER_KILL_WAIT_MS = 5000;

const errorCode = (error: unknown): string | undefined =>
  error instanceof Error && "code" in error && typeof error.code === "string" ? error.code : undefined;

/** Sends `signal` to every process of group `pgid`; false when the group no longer exists. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    if (errorCode(error) === "ESRCH") return false;
    throw error;
  }
}

/**
 * Linux keeps killed processes as zombies until their parent reaps them, and an orphan's new
 * parent (PID 1 in a container) may reap lazily. A group made only of zombies is dead for our
 * purposes; /proc tells them apart. Elsewhere (no /proc) any member counts as alive.
 */
function hasNonZombieMember(pgid: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // exited while we looked
    }
    // Fields after the parenthesised command name: state ppid pgrp ...
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") return true;
  }
  return false;
}

function readState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0] ?? null;
  } catch {
    return null;
  }
}

/** True while process `pid` exists and is not a zombie. */
export function processIsRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if (errorCode(error) === "ESRCH") return false;
  }
  const state = readState(pid);
  return state !== "Z" && state !== "X";
}

/** True while some process of group `pgid` is still running (zombies do not count). */
export function groupIsAlive(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  return hasNonZombieMember(pgid);
}

async function waitForGroupExit(pgid: number, waitMs: number): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  while (groupIsAlive(pgid)) {
    if (Date.now() >= deadline) return false;
    await sleep(POLL_MS);
  }
  return true;
}

/**
 * Ends the whole group: SIGTERM, up to `graceMs` to exit, then SIGKILL. Resolves once no member
 * runs any more, with the last signal sent (null when the group was already gone).
 */
export async function terminateGroup(pgid: number, graceMs: number): Promise<NodeJS.Signals | null> {
  if (!groupIsAlive(pgid)) return null;
  if (!signalGroup(pgid, "SIGTERM")) return null;
  if (await waitForGroupExit(pgid, graceMs)) return "SIGTERM";
  signalGroup(pgid, "SIGKILL");
  await waitForGroupExit(pgid, AFTER_KILL_WAIT_MS);
  return "SIGKILL";
}

// Groups are detached, so they would outlive devflow if it exited mid-run (process.exit, a
// crash). The exit hook must be synchronous: a SIGKILL is all it can do.
const liveGroups = new Set<number>();
let exitHookInstalled = false;

export function trackGroup(pgid: number): void {
  liveGroups.add(pgid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", killLiveGroups);
}

/**
 * SIGKILLs every group devflow started and still waits on; synchronous, so it works on the way out
 * (the exit hook, a forced exit after a second Ctrl-C). Returns how many groups it signalled.
 */
export function killLiveGroups(): number {
  let signalled = 0;
  for (const group of liveGroups) {
    try {
      process.kill(-group, "SIGKILL");
      signalled += 1;
    } catch {
      // already gone
    }
  }
  return signalled;
}

export function untrackGroup(pgid: number): void {
  liveGroups.delete(pgid);
}
