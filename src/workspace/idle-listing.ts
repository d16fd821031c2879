import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { isTaskId } from "../home/task-id.js";

/** A finished task's coder checkout kept idle in `.idle/` (ADR 0050), as listed there. */
export interface IdleEntry {
  /** The task whose coder checkout this was. */
  id: string;
  /** `.idle/<id>` (a directory, or a link planted there: never followed). */
  path: string;
  /**
   * When it was retired: the mtime of `.idle/<id>.index`, which retirement writes just before it
   * renames the checkout in (a directory's own mtime says when the coder last changed its top
   * level, not when it went idle). 0 without that file: such an entry can never be reused (its
   * index is what reuse trusts), so it counts as the oldest: the first pruned, the last claimed,
   * and removed by any `devflow clean --older-than`.
   */
  retiredAt: number;
}

/**
 * The one listing of idle checkouts (reuse and `devflow clean` both use it), oldest first. `dir`
 * is `.idle` as idleDir() resolved it in place (the caller refuses a link on the way). Nothing is
 * followed: entries are lstat'ed, a regular file (`<id>.index`) or a private name (a claim in
 * progress) is no idle checkout.
 */
export function listIdleEntries(dir: string): IdleEntry[] {
  const found: IdleEntry[] = [];
  for (const name of idleNames(dir)) {
    if (!isTaskId(name)) continue;
    const path = join(dir, name);
    try {
      if (lstatSync(path).isFile()) continue;
    } catch {
      continue; // taken since the listing
    }
    found.push({ id: name, path, retiredAt: lstatMtime(join(dir, `${name}.index`)) ?? 0 });
  }
  return found.sort((a, b) => a.retiredAt - b.retiredAt || a.id.localeCompare(b.id));
}

function lstatMtime(path: string): number | null {
  try {
    return lstatSync(path).mtimeMs;
  } catch {
    return null;
  }
}

/**
 * Every name in `.idle` (`dir` as for listIdleEntries): checkouts, their `<id>.index`, claims in
 * progress. None when it cannot be read (absent, or gone since idleDir looked).
 */
export function idleNames(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
