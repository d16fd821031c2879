import { existsSync } from "node:fs";
import { openTaskStore, taskDir } from "../../../home/index.js";
import type { ModelGateway } from "../../../models/contract.js";
import type { IterateOutcome } from "../../outcome.js";

/**
 * `--resume` of a task that already has its verdict and whose checkout was removed when it
 * finished (the default, `--keep-worktree` keeps it): nothing is left to run, so the recorded
 * verdict is the outcome, as it is for a finished task whose checkout is still there. Null when
 * the task has no verdict or still has its checkout (the runner's usual path decides).
 */
export async function finishedWithoutCheckout(
  repoRoot: string,
  taskId: string,
  gateway: ModelGateway,
): Promise<IterateOutcome | null> {
  const run = await openTaskStore(repoRoot, taskId).read("iterator_run");
  if (!run?.terminal || existsSync(run.workspace.worktree)) return null;
  return {
    kind: "finished",
    lane: "iterate",
    result: {
      taskId,
      terminal: run.terminal,
      artifactDir: taskDir(repoRoot, taskId),
      worktree: run.workspace.worktree,
      branch: run.workspace.branch,
      attempts: run.attempts.length,
      usage: gateway.usage(),
    },
  };
}
