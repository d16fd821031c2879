import { existsSync, lstatSync, realpathSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { runGit } from "./git.js";
import { TASK_BRANCH_PREFIX, taskBranch } from "./task-branch.js";
import { taskWorktreePath } from "./task-worktree.js";

/**
 * The user's `devflow/<id>` branches as `id → commit`: one `for-each-ref` for every task, so
 * `devflow runs` does not start a git process per task.
 */
export async function listTaskBranches(repoRoot: string): Promise<Map<string, string>> {
  const out = await runGit(repoRoot, [
    "for-each-ref",
    "--format=%(objectname) %(refname)",
    `refs/heads/${TASK_BRANCH_PREFIX}`,
  ]);
  const branches = new Map<string, string>();
  const prefix = `refs/heads/${TASK_BRANCH_PREFIX}`;
  for (const line of out.split("\n")) {
    const [sha, ref] = line.trim().split(" ");
    if (sha && ref?.startsWith(prefix)) branches.set(ref.slice(prefix.length), sha);
  }
  return branches;
}

/**
 * Deletes `refs/heads/devflow/<id>` in the user's repository only if it still points at
 * `expected` (compare-and-swap, like every move devflow makes of it): a branch the user moved
 * meanwhile is left alone (git refuses). No other ref, and no config, is touched.
 */
export async function deleteTaskBranch(repoRoot: string, taskId: string, expected: string): Promise<void> {
  await runGit(repoRoot, [
    "update-ref",
    "-m",
    "devflow: clean",
    "-d",
    `refs/heads/${taskBranch(taskId)}`,
    expected,
  ]);
}

/** What removing a task's coder checkout did. */
export type CheckoutRemoval = "removed" | "absent" | "linked_worktree";

/**
 * Removes the coder's checkout `.devflow/worktrees/<id>` (a repository of its own, ADR 0025:
 * nothing of the user's repository refers to it, so deleting the folder is the whole job). A
 * checkout an older devflow made as a linked worktree of the user's repository (`.git` is a file)
 * goes through `git worktree remove --force --force`, which also removes git's bookkeeping of it
 * (`.git/worktrees/<name>`, devflow's own entry) and nothing else; a linked worktree git does not
 * list as one of this repository's is left alone (`"linked_worktree"`).
 */
export async function removeTaskCheckout(repoRoot: string, taskId: string): Promise<CheckoutRemoval> {
  const checkout = taskWorktreePath(repoRoot, taskId);
  if (!existsSync(checkout)) return "absent";
  const dotGit = join(checkout, ".git");
  if (existsSync(dotGit) && lstatSync(dotGit).isFile()) {
    if (!(await isLinkedWorktreeOf(repoRoot, checkout))) return "linked_worktree";
    await runGit(repoRoot, ["worktree", "remove", "--force", "--force", checkout]);
    return "removed";
  }
  await rm(checkout, { recursive: true, force: true });
  return "removed";
}

/** Whether git lists `checkout` among the linked worktrees of the repository at `repoRoot`. */
async function isLinkedWorktreeOf(repoRoot: string, checkout: string): Promise<boolean> {
  const listed = await runGit(repoRoot, ["worktree", "list", "--porcelain"]).catch(() => "");
  const real = realpathSync(checkout);
  return listed
    .split("\n")
    .filter((l) => l.startsWith("worktree "))
    .some((l) => {
      try {
        return realpathSync(l.slice("worktree ".length)) === real;
      } catch {
        return false;
      }
    });
}
