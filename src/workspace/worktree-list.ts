import { runGit } from "./git.js";

export interface WorktreeEntry {
  path: string;
  head: string | undefined;
  /** Full ref, e.g. `refs/heads/devflow/x`; undefined when detached. */
  branch: string | undefined;
}

/** The worktrees registered in `repoRoot` (`git worktree list --porcelain`). */
export async function listWorktrees(repoRoot: string): Promise<WorktreeEntry[]> {
  const output = await runGit(repoRoot, ["worktree", "list", "--porcelain"]);
  const entries: WorktreeEntry[] = [];
  let current: WorktreeEntry | undefined;
  // No -z: it needs git 2.36, and a path containing a newline is not worth that.
  for (const field of output.split("\n")) {
    if (field.startsWith("worktree ")) {
      current = { path: field.slice("worktree ".length), head: undefined, branch: undefined };
      entries.push(current);
    } else if (current && field.startsWith("HEAD ")) {
      current.head = field.slice("HEAD ".length);
    } else if (current && field.startsWith("branch ")) {
      current.branch = field.slice("branch ".length);
    }
  }
  return entries;
}
