import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
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
  const dir = join(worktreesDir(repoRoot), `.base-${randomBytes(6).toString("hex")}`);
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
