import { basename, join, resolve } from "node:path";
import { DevflowError, messageOf } from "../errors/index.js";
import { acquireOwnedLock, describeOwner, ownerIsLive, warnLockLost } from "./owned-lock.js";
import { taskDir } from "./paths.js";

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
  const lock = await acquireOwnedLock({
    dir,
    name: "run",
    onCompromised: options.onCompromised ?? warnLockLost(`task ${taskId}`),
    refused: (owner, lockPath, cause) =>
      new DevflowError(
        "TASK_LOCKED",
        `another devflow run is working on task ${taskId} (${describeOwner(owner)}, lock ${lockPath}); wait for it to finish`,
        { cause },
      ),
    failed: (lockPath, cause) =>
      new DevflowError("TASK_LOCKED", `could not lock task ${taskId} (${lockPath}): ${messageOf(cause)}`, {
        cause,
      }),
  });
  return lock.release;
}

/**
 * Whether a devflow process on this host is working on task `taskId` right now (its lock owner
 * file names a live process). False when unsure (no owner file, another host).
 */
export function taskRunIsLive(repoRoot: string, taskId: string): boolean {
  return ownerIsLive(join(taskDir(repoRoot, taskId), "run.owner"));
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
