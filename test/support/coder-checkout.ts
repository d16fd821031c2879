import { openTaskStore } from "../../src/home/task-store.js";
import { createTaskWorktree } from "../../src/workspace/task-worktree.js";
import { openVerifyCheckout } from "../../src/workspace/verify-checkout.js";
import { exampleArtifacts } from "./artifact-examples.js";

/**
 * A task's coder checkout as the lane makes it: the run record first (the lane writes it before
 * the checkout, ADR 0033; its first state is when the task began, which the claim's in-use scan
 * goes by, ADR 0050), the checkout, then its verification repository opened as the store its
 * snapshots go to (what retirement and reuse read the index record from). The reuse tests and
 * attacks all start from here. `began`: the time the run record says the task began (default now).
 */
export async function coderCheckoutWithStore(repoRoot: string, taskId: string, began = Date.now()) {
  const run = exampleArtifacts(taskId).iterator_run;
  const at = new Date(began).toISOString();
  run.state_history = run.state_history.map((entry) => ({ ...entry, at }));
  await openTaskStore(repoRoot, taskId).write("iterator_run", run, { expectedRevision: 0 });
  const checkout = await createTaskWorktree({ repoRoot, taskId });
  await openVerifyCheckout({
    repoRoot,
    taskId,
    baseCommit: checkout.baseCommit,
    coderCheckout: checkout.worktree,
  });
  return checkout;
}
