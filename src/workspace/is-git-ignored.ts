import { gitSucceeds } from "./git.js";

/**
 * Whether `path` is ignored by the checkout's own ignore rules (`git check-ignore --no-index`),
 * through devflow's own git (no hooks, no fsmonitor, no global config): the same view of the
 * ignore rules that scope, snapshot and commit use. A bare git would also read the user's global
 * `core.excludesFile` (so something ignored only there would later count as a new file of the
 * change) and whatever a coder wrote into its checkout's `.git/config`.
 */
export async function isGitIgnored(worktree: string, path: string): Promise<boolean> {
  try {
    return await gitSucceeds(worktree, ["check-ignore", "-q", "--no-index", path]);
  } catch {
    return false;
  }
}
