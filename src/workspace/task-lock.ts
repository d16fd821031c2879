import { mkdir } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import lockfile from "proper-lockfile";
import { errorText, WorkspaceError } from "./errors.js";

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
 * Makes sure only one devflow run works on a task at a time, by locking its artifact folder
 * (`<artifactDir>/run.lock`). Returns the release function; releasing twice is harmless.
 */
export async function acquireTaskLock(
  artifactDir: string,
  options: TaskLockOptions = {},
): Promise<() => Promise<void>> {
  const dir = resolve(artifactDir);
  const taskId = basename(dir);
  const lockPath = join(dir, "run.lock");
  await mkdir(dir, { recursive: true });
  let release: () => Promise<void>;
  try {
    // proper-lockfile tracks held locks per *target* path in-process; the artifact store locks the
    // task dir itself for its writes, so this lock targets a distinct path or each would release the other.
    release = await lockfile.lock(join(dir, "run"), {
      lockfilePath: lockPath,
      stale: STALE_MS,
      retries: 0,
      realpath: false,
      onCompromised:
        options.onCompromised ??
        ((error) =>
          process.emitWarning(
            `devflow's lock on task ${taskId} was lost (${errorText(error)}); another run may be working on it too`,
          )),
    });
  } catch (error) {
    if (isLocked(error)) {
      throw new WorkspaceError(
        `another devflow run is working on task ${taskId} (lock ${lockPath}); wait for it or remove the lock if that run crashed`,
        { cause: error },
      );
    }
    throw new WorkspaceError(`could not lock task ${taskId} (${lockPath}): ${errorText(error)}`, {
      cause: error,
    });
  }
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    await release();
  };
}

function isLocked(error: unknown): boolean {
  return error instanceof Error && "code" in error && error.code === "ELOCKED";
}
