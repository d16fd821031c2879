import { readdirSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { worktreesDir } from "../home/paths.js";
import { runGit } from "./git.js";

/**
 * Removes `.devflow/worktrees/.base-*` checkouts whose owner process is gone. devflow no longer
 * makes them (base runs use the verification checkout, ADR 0024), but older versions did and removed
 * them only in a `finally` that a crash skips (issue 10: 7 of 33 crashes leaked one). A name with an
 * owner pid (`.base-<pid>-<hex>`) is kept while that process runs; one without is always orphaned.
 * Returns the removed directories.
 */
export async function removeDeadBaseWorktrees(
  repoRoot: string,
  ownerIsRunning: (pid: number) => boolean,
): Promise<string[]> {
  let entries: string[];
  try {
    entries = readdirSync(worktreesDir(repoRoot)).filter((e) => e.startsWith(".base-"));
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const entry of entries) {
    const owner = /^\.base-(\d+)-[0-9a-f]+$/.exec(entry)?.[1];
    if (owner !== undefined && ownerIsRunning(Number(owner))) continue;
    const dir = join(worktreesDir(repoRoot), entry);
    await rm(dir, { recursive: true, force: true });
    removed.push(dir);
  }
  if (removed.length > 0) await runGit(repoRoot, ["worktree", "prune"]).catch(() => undefined);
  return removed;
}
