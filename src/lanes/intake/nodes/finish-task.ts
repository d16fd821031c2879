import { checkoutEndFields, type FinishedCheckout } from "../../../artifacts/checkout-end.js";
import { removeFinishedWorktree } from "../../iterate/tasks/finish-worktree.js";
import { type TakeResult, takeResultCommands } from "../../iterate/tasks/take-result.js";
import type { IterateResult } from "../../outcome.js";
import type { IntakeDeps } from "../deps.js";

/** How a chat task that reached a verdict ended: its checkout, and how to take its result. */
export interface TaskEnding {
  checkout: FinishedCheckout;
  takeResult: TakeResult | null;
}

/**
 * The same end as `devflow iterate` (ADR 0045): a task that reached a verdict loses its coder
 * checkout unless `--keep-worktree` (the result is on `devflow/<id>`, the evidence in the
 * artifacts), and the commands that take the result are worked out. A task that paused or stopped
 * never gets here: it keeps the checkout `/resume` continues in.
 */
export async function finishChatTask(deps: IntakeDeps, result: IterateResult): Promise<TaskEnding> {
  const checkout: FinishedCheckout = deps.iterate.keepWorktree
    ? { end: "kept" }
    : await removeFinishedWorktree(result.artifactDir, result.taskId);
  const ending = { checkout, takeResult: takeResultCommands(result.terminal) };
  deps.emit({
    type: "task_finished",
    task_id: result.taskId,
    verdict: result.terminal.verdict,
    branch: result.terminal.branch,
    ...checkoutEndFields(ending.checkout),
    take_result: ending.takeResult,
  });
  return ending;
}
