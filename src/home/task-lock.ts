import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { hostname } from "node:os";
import { basename, join, resolve } from "node:path";
import lockfile from "proper-lockfile";
import { DevflowError, messageOf } from "../errors/index.js";
import { taskDir } from "./paths.js";

/** A lock not refreshed for this long belongs to a crashed run and is taken over. */
const STALE_MS = 30_000;

export interface TaskLockOptions {
  /**
   * Called when the lock was lost while held (e.g. the process stalled past the stale window and
   * another run took over). Defaults to a process warning; proper-lockfile's default would throw
   * from a timer and crash the process.
   */
  onCompromised?: (error: Error) => void;
}

/**
 * The one lock of a task dir (docs/decisions/0010-one-home.md): whoever writes a task's artifacts
 * holds it, a run for its whole length, a short writer (the chat linking a handoff) for one write.
 * Held as `<taskDir>/run.lock` (proper-lockfile, refreshed while held) with `{pid, host}` in
 * `run.owner`. Returns the release function; releasing twice is harmless. A lock whose owner
 * process is gone (same host, e.g. after a crash or SIGKILL) is taken over at once, so `--resume`
 * right after a crash does not have to wait for the stale window.
 */
export async function acquireTaskLock(
  artifactDir: string,
  options: TaskLockOptions = {},
): Promise<() => Promise<void>> {
  const dir = resolve(artifactDir);
  const taskId = basename(dir);
  const lockPath = join(dir, "run.lock");
  const ownerPath = join(dir, "run.owner");
  await mkdir(dir, { recursive: true });
  const lock = () =>
    // proper-lockfile tracks held locks per *target* path in-process; targeting a path of our own
    // (not the dir) keeps this lock independent of anything else that might lock the dir.
    lockfile.lock(join(dir, "run"), {
      lockfilePath: lockPath,
      stale: STALE_MS,
      retries: 0,
      realpath: false,
      onCompromised:
        options.onCompromised ??
        ((error) =>
          process.emitWarning(
            `devflow's lock on task ${taskId} was lost (${messageOf(error)}); another run may be working on it too`,
          )),
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
    if (isLocked(error)) {
      throw new DevflowError(
        "TASK_LOCKED",
        `another devflow run is working on task ${taskId} (${describeOwner(ownerPath)}, lock ${lockPath}); wait for it to finish`,
        { cause: error },
      );
    }
    throw new DevflowError(
      "TASK_LOCKED",
      `could not lock task ${taskId} (${lockPath}): ${messageOf(error)}`,
      {
        cause: error,
      },
    );
  }
  writeFileSync(ownerPath, JSON.stringify({ pid: process.pid, host: hostname() }));
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    rmSync(ownerPath, { force: true });
    await release();
  };
}

/**
 * Whether a devflow process on this host is working on task `taskId` right now (its lock owner
 * file names a live process). False when unsure (no owner file, another host).
 */
export function taskRunIsLive(repoRoot: string, taskId: string): boolean {
  const ownerPath = join(taskDir(repoRoot, taskId), "run.owner");
  const owner = readOwner(ownerPath);
  return owner !== null && owner.host === hostname() && !ownerIsGone(ownerPath);
}

interface LockOwner {
  pid: number;
  host: string;
}

function readOwner(ownerPath: string): LockOwner | null {
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
  const owner = readOwner(ownerPath);
  if (!owner || owner.host !== hostname()) return false;
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

function describeOwner(ownerPath: string): string {
  const owner = readOwner(ownerPath);
  return owner ? `pid ${owner.pid} on ${owner.host}` : "owner unknown";
}

function isLocked(error: unknown): boolean {
  return error instanceof Error && "code" in error && error.code === "ELOCKED";
}

/** The task lock of `.devflow/iterate/<taskId>` (see acquireTaskLock). */
export const lockTask = (repoRoot: string, taskId: string, options: TaskLockOptions = {}) =>
  acquireTaskLock(taskDir(repoRoot, taskId), options);

/** Runs one short write to a task that is not running under the task lock; refused while a run holds it. */
export async function withTaskLock<T>(repoRoot: string, taskId: string, fn: () => Promise<T>): Promise<T> {
  const release = await lockTask(repoRoot, taskId);
  try {
    return await fn();
  } finally {
    await release();
  }
}
