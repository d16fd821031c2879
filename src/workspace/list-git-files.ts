import { gitOutputAndExit } from "./git.js";

/**
 * The repository's files as `git ls-files` lists them (tracked, plus untracked ones that are not
 * ignored), or null when `worktree` is not a git checkout. Through devflow's own git (no hooks, no
 * fsmonitor, no global config): the tools list files of a repository a ticket author or a coder
 * owns, whose `.git/config` may set `core.fsmonitor` to a command (review, session 16).
 */
export async function listGitFiles(worktree: string): Promise<string[] | null> {
  const result = await gitOutputAndExit(worktree, [
    "ls-files",
    "-z",
    "--cached",
    "--others",
    "--exclude-standard",
  ]).catch(() => null);
  if (result?.exitCode !== 0) return null;
  return result.stdout.split("\0").filter((f) => f !== "");
}
