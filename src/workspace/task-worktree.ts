import { existsSync, mkdirSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { DevflowError } from "../errors/index.js";
import { ensureDevflowDir, worktreesDir } from "../home/paths.js";
import { assertTaskId } from "../home/task-id.js";

import { gitSucceeds, runGit } from "./git.js";
import { recordGitLink, reopenWorktreeLink } from "./git-link.js";
import { samePath } from "./paths.js";
import { taskBranch } from "./task-branch.js";
import { assertTaskCheckout } from "./task-checkout.js";
import type { TaskWorkspace } from "./types.js";
import { listWorktrees } from "./worktree-list.js";

export interface TaskWorktreeRef {
  repoRoot: string;
  taskId: string;
}

/** `<repo>/.devflow/worktrees/<taskId>`. */
export function taskWorktreePath(repoRoot: string, taskId: string): string {
  return join(worktreesDir(repoRoot), assertTaskId(taskId));
}

/**
 * Creates branch `devflow/<taskId>` at the current HEAD and checks it out in a new worktree
 * under `.devflow/worktrees/`. Only refs and git's worktree bookkeeping change in the user's
 * repo; their working tree, index, HEAD and current branch stay as they were. An existing branch
 * or folder is refused: whether to resume is the caller's decision (see openTaskWorktree).
 */
export async function createTaskWorktree({ repoRoot, taskId }: TaskWorktreeRef): Promise<TaskWorkspace> {
  const branch = taskBranch(taskId);
  const worktree = taskWorktreePath(repoRoot, taskId);
  if (await branchExists(repoRoot, branch)) {
    throw new DevflowError(
      "CHECKOUT_EXISTS",
      `branch ${branch} already exists in ${repoRoot}; resume that task (--resume) or delete the branch (\`git branch -D ${branch}\`) to start over`,
    );
  }
  if (existsSync(worktree)) {
    throw new DevflowError(
      "CHECKOUT_EXISTS",
      `worktree folder already exists: ${worktree}; resume that task (--resume) or remove it (\`git worktree remove --force ${worktree}\`) to start over`,
    );
  }
  ensureDevflowDir(repoRoot);
  mkdirSync(worktreesDir(repoRoot), { recursive: true });
  // Branch from the resolved sha, so a commit landing meanwhile cannot shift the base.
  const baseCommit = (await runGit(repoRoot, ["rev-parse", "--verify", "HEAD^{commit}"])).trim();
  await runGit(repoRoot, ["worktree", "add", "-b", branch, worktree, baseCommit]);
  const gitLink = await recordGitLink(worktree);
  return { repoRoot, worktree, branch, baseCommit, kind: "worktree", gitLink };
}

/** Reopens the worktree of an earlier run of `taskId` (for --resume), checking it is still usable. */
export async function openTaskWorktree({
  repoRoot,
  taskId,
  baseCommit,
}: TaskWorktreeRef & { baseCommit: string }): Promise<TaskWorkspace> {
  const branch = taskBranch(taskId);
  const worktree = taskWorktreePath(repoRoot, taskId);
  if (!existsSync(worktree)) {
    throw new DevflowError(
      "CHECKOUT_UNUSABLE",
      `the worktree of task ${taskId} is gone (${worktree}); it cannot be resumed, start the task again without --resume`,
    );
  }
  const registered = (await listWorktrees(repoRoot)).some((entry) => samePath(entry.path, worktree));
  if (!registered) {
    throw new DevflowError(
      "CHECKOUT_UNUSABLE",
      `${worktree} is not a registered git worktree of ${repoRoot}; remove the folder and start the task again without --resume`,
    );
  }
  const gitLink = await reopenWorktreeLink(repoRoot, worktree);
  await assertTaskCheckout(worktree, branch, baseCommit);
  return { repoRoot, worktree, branch, baseCommit, kind: "worktree", gitLink };
}

/**
 * Removes the task's worktree (with any uncommitted work in it) and, unless told otherwise, its
 * branch. Meant for tests and the playground; a finished task's branch is the user's result.
 */
export async function removeTaskWorktree({
  repoRoot,
  taskId,
  deleteBranch = true,
}: TaskWorktreeRef & { deleteBranch?: boolean }): Promise<void> {
  const branch = taskBranch(taskId);
  const worktree = taskWorktreePath(repoRoot, taskId);
  const registered = (await listWorktrees(repoRoot)).some((entry) => samePath(entry.path, worktree));
  if (registered && existsSync(worktree)) await runGit(repoRoot, ["worktree", "remove", "--force", worktree]);
  await rm(worktree, { recursive: true, force: true });
  await runGit(repoRoot, ["worktree", "prune"]);
  if (deleteBranch && (await branchExists(repoRoot, branch))) {
    await runGit(repoRoot, ["branch", "-D", branch]);
  }
}

async function branchExists(repoRoot: string, branch: string): Promise<boolean> {
  return gitSucceeds(repoRoot, ["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`]);
}
