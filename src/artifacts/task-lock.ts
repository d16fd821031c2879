import { join } from "node:path";
import lockfile from "proper-lockfile";
import { artifactLockError } from "./errors.js";

/** A directory (proper-lockfile uses mkdir, which is atomic) inside the task dir, so it goes away with it. */
export const LOCK_NAME = ".store.lock";

export const DEFAULT_LOCK_STALE_MS = 10_000;

/**
 * Runs `fn` holding the task dir's lock. Writers only hold it for a read-compare-rename, so waiting
 * a little is normal; a lock left by a crashed process counts as stale after `staleMs` (proper-lockfile
 * refreshes a live holder's lock every staleMs/2), and the retries outlast that so the next writer recovers.
 */
export async function withTaskLock<T>(
  dir: string,
  purpose: string,
  staleMs: number,
  fn: () => Promise<T>,
): Promise<T> {
  const lockPath = join(dir, LOCK_NAME);
  const state: { lost: Error | null } = { lost: null };
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(dir, {
      lockfilePath: lockPath,
      realpath: false,
      stale: staleMs,
      retries: {
        retries: Math.ceil((staleMs * 2) / 100),
        factor: 1.5,
        minTimeout: 5,
        maxTimeout: 100,
        randomize: true,
      },
      onCompromised: (error) => {
        state.lost = error;
      },
    });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw artifactLockError(
      `could not lock ${dir} to ${purpose} (${detail}). Another devflow process is writing this task; if none is running, remove ${lockPath}.`,
    );
  }
  try {
    const result = await fn();
    if (state.lost) {
      throw artifactLockError(
        `the lock on ${dir} was lost while trying to ${purpose} (${state.lost.message}); another writer may have raced it: re-read the artifact before writing again`,
      );
    }
    return result;
  } finally {
    // A compromised lock rejects on release; the error above already says what happened.
    await release().catch(() => {});
  }
}
