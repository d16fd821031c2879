import { checkoutEndFields, type FinishedCheckout } from "../artifacts/checkout-end.js";
import type { IterateResult } from "../lanes/outcome.js";
import type { RunEnding } from "./summary.js";

/**
 * After a run that finished (any verdict): removes the coder's checkout unless `keepWorktree`
 * (the result is on the branch, the evidence in the artifacts) and works out how to take the
 * result. A paused task never gets here: it keeps its checkout for `--resume`.
 */
export async function finishRun(result: IterateResult, keepWorktree: boolean): Promise<RunEnding> {
  let checkout: FinishedCheckout = { end: "kept" };
  if (!keepWorktree) {
    const { removeFinishedWorktree } = await import("../lanes/iterate/tasks/finish-worktree.js");
    checkout = await removeFinishedWorktree(result.artifactDir, result.taskId);
  }
  // The commands' owner is the lane's tasks module: loaded here, not at start-up (ADR 0042).
  const { takeResultCommands } = await import("./take-result.js");
  return { checkout, takeResult: takeResultCommands(result.terminal) };
}

/**
 * The fields this adds to `--json`'s result line: `take_result` ({merge, review} after completed,
 * else null), `worktree_kept`, `worktree_end` and (kept idle) `worktree_idle_path`.
 */
export const endingFields = (ending: RunEnding) => ({
  take_result: ending.takeResult,
  ...checkoutEndFields(ending.checkout),
});
