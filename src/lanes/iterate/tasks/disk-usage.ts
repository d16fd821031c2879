import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";

/**
 * Bytes a folder takes on disk (allocated blocks, like `du`), symlinks not followed: a task
 * checkout links the user's `node_modules` and borrows the user's objects, neither of which is
 * the task's to count or to free. 0 when the path is missing.
 */
export function diskUsage(path: string): number {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(path);
  } catch {
    return 0;
  }
  const own = stat.blocks === undefined ? stat.size : stat.blocks * 512;
  if (!stat.isDirectory()) return own;
  let total = own;
  let entries: string[];
  try {
    entries = readdirSync(path);
  } catch {
    return total;
  }
  for (const entry of entries) total += diskUsage(join(path, entry));
  return total;
}
