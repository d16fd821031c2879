import { devflowDir } from "../../../home/index.js";
import type { RepoMounts } from "../../../process/mount-namespace.js";
import { openVerifyCheckout, resetVerifyCheckout } from "../../../workspace/index.js";
import { dependencyLinks, linkDependencies } from "../link-dependencies.js";

/** What locates a task's checkouts (a subset of the lane state). */
export interface TaskCheckouts {
  repoRoot: string;
  taskId: string;
  baseCommit: string;
  worktree: string;
}

/**
 * The task's verification checkout (ADR 0024) reset to exactly `treeish` (a snapshot tree, or the
 * base commit for the base runs), with the user's installed dependencies linked as in the coder's
 * checkout. Returns its directory: seam, seam integrity, regression and the base runs happen there.
 */
export async function verificationCheckoutAt(task: TaskCheckouts, treeish: string): Promise<string> {
  const checkout = await openVerifyCheckout({
    repoRoot: task.repoRoot,
    taskId: task.taskId,
    baseCommit: task.baseCommit,
    coderCheckout: task.worktree,
  });
  await resetVerifyCheckout(checkout, treeish, dependencyLinks(task.repoRoot));
  await linkDependencies(task.repoRoot, checkout.dir);
  return checkout.dir;
}

/**
 * How every verification command of the task sees the repository where mount namespaces work
 * (ADR 0031): the user's checkout (and the `node_modules` linked from it) read-only, devflow's
 * home hidden but for the checkout the command runs in and its own report directory. The commands
 * run the coder's code, so they get the coder's confinement.
 */
export const verifierMounts = (task: Pick<TaskCheckouts, "repoRoot">): RepoMounts => ({
  readOnly: task.repoRoot,
  hide: devflowDir(task.repoRoot),
});
