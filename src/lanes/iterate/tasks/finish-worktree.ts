import { lockTask, openTaskStore, repoRootOfTaskDir } from "../../../home/index.js";
import { removeTaskCheckout } from "../../../workspace/index.js";

/**
 * The end of a finished run (any verdict) without `--keep-worktree`: the coder's checkout
 * `.devflow/worktrees/<id>` goes (the result is on `devflow/<id>`, the evidence in the artifacts,
 * and the verification checkout stays for the next task to adopt, ADR 0039). Taken under the task's
 * lock and only when the run record holds a verdict, so a task that paused or stopped without one
 * keeps the checkout `--resume` continues in. Returns whether the checkout was removed.
 */
export async function removeFinishedWorktree(artifactDir: string, taskId: string): Promise<boolean> {
  const repoRoot = repoRootOfTaskDir(artifactDir);
  let release: () => Promise<void>;
  try {
    release = await lockTask(repoRoot, taskId, { onCompromised: () => {} });
  } catch {
    return false; // another run of the task has started: its checkout is not ours to remove
  }
  try {
    const run = await openTaskStore(repoRoot, taskId).read("iterator_run");
    if (!run?.terminal) return false;
    return (await removeTaskCheckout(repoRoot, taskId)) === "removed";
  } finally {
    await release();
  }
}
