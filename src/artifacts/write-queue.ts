import { resolve } from "node:path";

/**
 * Files in a task dir the store never writes itself: the task lock's (src/home/task-lock.ts).
 * Every process that writes a task dir holds that lock, so the store only has to order the
 * writes of its own process (see docs/decisions/0010-one-home.md).
 */
export const TASK_LOCK_FILES: readonly string[] = ["run.lock", "run.owner"];

const tails = new Map<string, Promise<unknown>>();

/**
 * Runs `fn` after every earlier write to the same task dir *of this process* finished, so a
 * read-compare-rename is never interleaved with another one (several ArtifactStore instances on
 * one dir share the queue). Cross-process exclusion is the task lock's job, not the store's.
 */
export async function serializeWrites<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const key = resolve(dir);
  const before = tails.get(key) ?? Promise.resolve();
  const run = before.then(fn, fn);
  const tail = run.catch(() => {});
  tails.set(key, tail);
  try {
    return await run;
  } finally {
    if (tails.get(key) === tail) tails.delete(key);
  }
}
