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
