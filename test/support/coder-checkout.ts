import { createTaskWorktree } from "../../src/workspace/task-worktree.js";
import { openVerifyCheckout } from "../../src/workspace/verify-checkout.js";

/**
 * A task's coder checkout as the lane makes it: the checkout, then its verification repository
 * opened as the store its snapshots go to (what retirement and reuse read the index record from).
 * The reuse tests and attacks all start from here.
 */
export async function coderCheckoutWithStore(repoRoot: string, taskId: string) {
  const checkout = await createTaskWorktree({ repoRoot, taskId });
  await openVerifyCheckout({
    repoRoot,
    taskId,
    baseCommit: checkout.baseCommit,
    coderCheckout: checkout.worktree,
  });
  return checkout;
}
