import { lstatSync } from "node:fs";
import { join } from "node:path";
import type { FinishedCheckout } from "../../../artifacts/checkout-end.js";
import { idleCoderCheckoutsDir, lockTask, openTaskStore, repoRootOfTaskDir } from "../../../home/index.js";
import { runLeftoversDieWithTheRun } from "../../../process/containment.js";
import { removeTaskCheckout, retireCoderCheckout, taskWorktreePath } from "../../../workspace/index.js";
import { wholeNumberFromEnv } from "../lane/env-number.js";

/** How many finished coder checkouts a repository keeps idle for the next task to reuse (ADR 0050). */
export const MAX_IDLE_CODER_CHECKOUTS_ENV = "DEVFLOW_MAX_IDLE_CODER_CHECKOUTS";
export const DEFAULT_MAX_IDLE_CODER_CHECKOUTS = 1;

/**
 * The end of a finished run (any verdict) without `--keep-worktree`: the coder's checkout
 * `.devflow/worktrees/<id>` leaves the task (the result is on `devflow/<id>`, the evidence in the
 * artifacts, and the verification checkout stays for the next task to adopt, ADR 0039). It is kept
 * idle for the next task's coder checkout to start from (ADR 0050, fourth slice: reset to the new
 * base with devflow's own index, a new git dir), at most `DEVFLOW_MAX_IDLE_CODER_CHECKOUTS` of them
 * (default 1, `0`: removed as before), or removed. Taken under the task's lock and only when the run
 * record holds a verdict, so a task that paused or stopped without one keeps the checkout
 * `--resume` continues in. Returns what became of the checkout (so no one says "removed" of one
 * kept idle).
 */
export async function removeFinishedWorktree(
  artifactDir: string,
  taskId: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<FinishedCheckout> {
  const maxIdle = maxIdleCoderCheckouts(env);
  const repoRoot = repoRootOfTaskDir(artifactDir);
  let release: () => Promise<void>;
  try {
    release = await lockTask(repoRoot, taskId, { onCompromised: () => {} });
  } catch {
    return KEPT; // another run of the task has started: its checkout is not ours to remove
  }
  try {
    const run = await openTaskStore(repoRoot, taskId).read("iterator_run");
    if (!run?.terminal) return KEPT;
    const checkout = taskWorktreePath(repoRoot, taskId);
    // Only devflow's own kind of checkout (a repository of its own) is kept; a linked worktree of
    // an older devflow goes through removeTaskCheckout's bookkeeping.
    // Kept idle only where no process of its coder can have outlived the run (ADR 0050): a
    // leftover that cleared its environment and turned non-dumpable is invisible to the claim's
    // scan when it started before the next task's predecessor (session-23 review).
    if (maxIdle > 0 && runLeftoversDieWithTheRun() && hasGitDir(checkout)) {
      const retired = retireCoderCheckout(repoRoot, taskId, checkout, maxIdle);
      if (retired === "kept_idle")
        return { end: "kept_idle", idlePath: join(idleCoderCheckoutsDir(repoRoot), taskId) };
      return retired === "removed" ? { end: "removed" } : KEPT;
    }
    return (await removeTaskCheckout(repoRoot, taskId)) === "removed" ? { end: "removed" } : KEPT;
  } finally {
    await release();
  }
}

const KEPT: FinishedCheckout = { end: "kept" };

function hasGitDir(checkout: string): boolean {
  try {
    // lstat both: a checkout swapped for a link to another repository is not a checkout of ours.
    return lstatSync(checkout).isDirectory() && lstatSync(join(checkout, ".git")).isDirectory();
  } catch {
    return false;
  }
}

export function maxIdleCoderCheckouts(env: NodeJS.ProcessEnv): number {
  return wholeNumberFromEnv(env, MAX_IDLE_CODER_CHECKOUTS_ENV, DEFAULT_MAX_IDLE_CODER_CHECKOUTS);
}
