import { devflowDir } from "../../../home/index.js";
import type { RepoMounts } from "../../../process/mount-namespace.js";
import { openVerifyCheckout, resetVerifyCheckout } from "../../../workspace/index.js";
import { dependencyLinks, installedDependencyDirs, linkDependencies } from "../link-dependencies.js";

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
 * How a confined run of the task sees the repository where mount namespaces work (ADR 0025,
 * 0031): the user's checkout read-only, devflow's home hidden (the caller exposes the checkout the
 * run works in), the user's installed dependencies read-only wherever they really live. For the
 * verification commands (`copyOnWrite`) the dependencies get a throwaway writable layer, so the
 * runners' caches inside `node_modules` work while the user's copy stays untouched.
 */
export const repoMounts = (task: Pick<TaskCheckouts, "repoRoot">, copyOnWrite: boolean): RepoMounts => ({
  readOnly: task.repoRoot,
  hide: devflowDir(task.repoRoot),
  dependencies: installedDependencyDirs(task.repoRoot).map((path) => ({ path, copyOnWrite })),
});

/** Every verification command runs the coder's code, so it gets the coder's confinement (ADR 0031). */
export const verifierMounts = (task: Pick<TaskCheckouts, "repoRoot">): RepoMounts => repoMounts(task, true);
