import { lstatSync, realpathSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { idleCoderCheckoutsDir } from "../home/paths.js";

/**
 * `.devflow/worktrees/.idle` as reuse and `devflow clean` may use it (ADR 0050): "in place" when it
 * (or, while it does not exist yet, its parent) is at its own real path, "link" when a link on the
 * way (`.idle`, `worktrees` or `.devflow` itself: a repository can track one, a coder without a mount
 * namespace can plant one) leads elsewhere. Through such a link, reuse would claim and delete, and
 * clean would delete, whatever folders it leads to (session-17 review,
 * clean-idle-follows-a-linked-idle-dir): callers never follow it.
 */
export type IdleDir =
  | { state: "in_place"; dir: string; exists: boolean }
  | { state: "link"; dir: string; leadsTo: string };

export function idleDir(repoRoot: string): IdleDir {
  const dir = idleCoderCheckoutsDir(repoRoot);
  const expected = join(realpathSync(repoRoot), relative(repoRoot, dir));
  const real = realOrNull(dir);
  if (real !== null)
    return real === expected && lstatSync(real).isDirectory()
      ? { state: "in_place", dir, exists: true }
      : { state: "link", dir, leadsTo: real };
  const parent = realOrNull(dirname(dir));
  return parent === null || parent === dirname(expected)
    ? { state: "in_place", dir, exists: false }
    : { state: "link", dir, leadsTo: join(parent, ".idle") };
}

function realOrNull(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}
