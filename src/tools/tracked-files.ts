import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import picomatch from "picomatch";
import { DEVFLOW_DIR } from "../home/paths.js";
import { listGitFiles } from "../workspace/index.js";

/** Directories never listed or searched when the worktree is not a git repository. */
const SKIPPED_DIRS = new Set([".git", DEVFLOW_DIR, "node_modules"]);

/**
 * The repository's files, repo-relative with posix separators, sorted: tracked files plus
 * untracked ones that are not ignored (so a repro test the agent just wrote is visible), minus
 * tracked files deleted in the worktree. Falls back to a directory walk outside git.
 */
export async function listRepoFiles(worktree: string, signal?: AbortSignal): Promise<string[]> {
  signal?.throwIfAborted();
  // devflow's git: the repository's `.git/config` (its fsmonitor command) is not the tools' to run.
  const fromGit = await listGitFiles(worktree);
  const files = fromGit ?? (await walk(worktree, ""));
  const present: string[] = [];
  for (const file of new Set(files)) {
    if (await exists(join(worktree, file))) present.push(file);
  }
  return present.sort();
}

/** A glob filter (picomatch, dotfiles included). A pattern without "/" matches the file name anywhere. */
export function globFilter(pattern: string | undefined): (file: string) => boolean {
  if (!pattern || pattern === "**" || pattern === "**/*") return () => true;
  const matcher = picomatch(pattern, { dot: true, basename: !pattern.includes("/") });
  // Not passed to Array#filter directly: picomatch's second parameter (returnObject) would receive the index.
  return (file) => matcher(file);
}

async function walk(root: string, prefix: string): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(join(root, prefix), { withFileTypes: true });
  for (const entry of entries) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) out.push(...(await walk(root, rel)));
    } else {
      out.push(rel);
    }
  }
  return out;
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}
