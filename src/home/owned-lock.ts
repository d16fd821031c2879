import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { hostname } from "node:os";
import { join, resolve } from "node:path";
import lockfile from "proper-lockfile";
import { messageOf } from "../errors/index.js";

/** A lock not refreshed for this long belongs to a crashed process and is taken over. */
const STALE_MS = 30_000;

/** The process holding a lock, as its owner file records it. */
export interface LockOwner {
  pid: number;
  host: string;
}

/** A held lock. `releaseSync` is for owners that close synchronously (a chat session's close()). */
export interface OwnedLock {
  release(): Promise<void>;
  releaseSync(): void;
}

export interface OwnedLockSpec {
  /** The dir the lock files live in (created). */
  dir: string;
  /** Base name: `<name>.lock` (proper-lockfile's dir) and `<name>.owner` (`{pid, host}`). */
  name: string;
  /** Called when the lock was lost while held; proper-lockfile's default throws from a timer. */
  onCompromised: (error: Error) => void;
  /** The error for a lock another live process holds (`owner` null: its owner file is unreadable). */
  refused: (owner: LockOwner | null, lockPath: string, cause: unknown) => Error;
  /** The error for any other failure to lock. */
  failed: (lockPath: string, cause: unknown) => Error;
}

/**
 * The one lock mechanism of `.devflow/` (task locks, chat thread locks): a proper-lockfile lock at
 * `<dir>/<name>.lock`, refreshed while held, with `{pid, host}` in `<dir>/<name>.owner`. A lock
 * whose owner process is gone (same host: crash, SIGKILL) is taken over at once, without waiting
 * for the stale window. Releasing twice (either way) is harmless.
 */
export async function acquireOwnedLock(spec: OwnedLockSpec): Promise<OwnedLock> {
  const dir = resolve(spec.dir);
  const lockPath = join(dir, `${spec.name}.lock`);
  const ownerPath = join(dir, `${spec.name}.owner`);
  await mkdir(dir, { recursive: true });
  const target = join(dir, spec.name);
  const lock = () =>
    // proper-lockfile tracks held locks per *target* path in-process; targeting a path of our own
    // (not the dir) keeps this lock independent of anything else that might lock the dir.
    lockfile.lock(target, {
      lockfilePath: lockPath,
      stale: STALE_MS,
      retries: 0,
      realpath: false,
      onCompromised: spec.onCompromised,
    });
  let release: () => Promise<void>;
  try {
    try {
      release = await lock();
    } catch (error) {
      if (!isLocked(error) || !ownerIsGone(ownerPath)) throw error;
      rmSync(lockPath, { recursive: true, force: true });
      release = await lock();
    }
  } catch (error) {
    if (isLocked(error)) throw spec.refused(readLockOwner(ownerPath), lockPath, error);
    throw spec.failed(lockPath, error);
  }
  writeFileSync(ownerPath, JSON.stringify({ pid: process.pid, host: hostname() }));
  let released = false;
  const letGo = (): boolean => {
    if (released) return false;
    released = true;
    rmSync(ownerPath, { force: true });
    return true;
  };
  return {
    release: async () => {
      if (letGo()) await release();
    },
    releaseSync: () => {
      if (letGo()) lockfile.unlockSync(target, { lockfilePath: lockPath, realpath: false });
    },
  };
}

/** Whether the owner file names a live process on this host (false when unsure). */
export function ownerIsLive(ownerPath: string): boolean {
  const owner = readLockOwner(ownerPath);
  return owner !== null && owner.host === hostname() && !ownerIsGone(ownerPath);
}

/** `pid 123 on host`, or "owner unknown". */
export const describeOwner = (owner: LockOwner | null): string =>
  owner ? `pid ${owner.pid} on ${owner.host}` : "owner unknown";

/** The default onCompromised: a process warning naming what was lost. */
export const warnLockLost =
  (what: string) =>
  (error: Error): void =>
    process.emitWarning(
      `devflow's lock on ${what} was lost (${messageOf(error)}); another process may be using it too`,
    );

/** The `{pid, host}` of a lock's owner file, or null when absent or unreadable. */
export function readLockOwner(ownerPath: string): LockOwner | null {
  try {
    const owner = JSON.parse(readFileSync(ownerPath, "utf8")) as Partial<LockOwner>;
    return typeof owner.pid === "number" && typeof owner.host === "string"
      ? { pid: owner.pid, host: owner.host }
      : null;
  } catch {
    return null;
  }
}

/** True only when we can tell for sure: same host and no such process. */
function ownerIsGone(ownerPath: string): boolean {
  const owner = readLockOwner(ownerPath);
  return owner !== null && processIsGone(owner);
}

/**
 * Whether the process `{pid, host}` is certainly gone: on this host and no such process (or a
 * zombie). A process on another host is never declared gone (we cannot tell). Shared by the locks
 * here and the daemon's ticket leases.
 */
export function processIsGone(owner: LockOwner): boolean {
  if (owner.host !== hostname()) return false;
  try {
    process.kill(owner.pid, 0);
    return isZombie(owner.pid);
  } catch (error) {
    return error instanceof Error && "code" in error && error.code === "ESRCH";
  }
}

/** A killed process whose parent has not reaped it yet still answers kill(pid, 0). */
function isZombie(pid: number): boolean {
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

function isLocked(error: unknown): boolean {
  return error instanceof Error && "code" in error && error.code === "ELOCKED";
}
