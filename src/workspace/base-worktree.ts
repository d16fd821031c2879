import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { DevflowError } from "../errors/index.js";
import { ensureDevflowDir, worktreesDir } from "../home/paths.js";

import { runGit } from "./git.js";

/**
 * Runs `fn` in a temporary detached worktree at `commit` (e.g. to run the baseline test command
 * on the untouched base) and always removes that worktree afterwards, also when `fn` throws.
 */
export async function withBaseWorktree<T>(
  repoRoot: string,
  commit: string,
  fn: (dir: string) => Promise<T>,
): Promise<T> {
  if (commit.trim() === "" || commit.startsWith("-")) {
    throw new DevflowError(
      "BAD_REVISION",
      `invalid base commit ${JSON.stringify(commit)}: pass a commit sha`,
    );
  }
  ensureDevflowDir(repoRoot);
  mkdirSync(worktreesDir(repoRoot), { recursive: true });
  // The owner's pid is in the name: a crash skips the finally, and the sweep must tell whose it is.
  const dir = join(worktreesDir(repoRoot), `.base-${process.pid}-${randomBytes(6).toString("hex")}`);
  try {
    await runGit(repoRoot, ["worktree", "add", "--detach", dir, commit]);
    return await fn(dir);
  } finally {
    await removeBaseWorktree(repoRoot, dir);
  }
}

/** Best effort on every step, so a cleanup hiccup never hides the error `fn` threw. */
async function removeBaseWorktree(repoRoot: string, dir: string): Promise<void> {
  await runGit(repoRoot, ["worktree", "remove", "--force", dir]).catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
  await runGit(repoRoot, ["worktree", "prune"]).catch(() => undefined);
}

/**
 * Removes the `.base-*` checkouts whose owner process is gone (a crash skips the `finally` above;
 * issue 10: 7 of 33 crashes leaked one). A name without an owner pid is from an older devflow and
 * has no owner any more. Returns the removed directories.
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
    await removeBaseWorktree(repoRoot, dir);
    removed.push(dir);
  }
  return removed;
}
