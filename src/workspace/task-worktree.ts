import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { DevflowError } from "../errors/index.js";
import { ensureDevflowDir, worktreesDir } from "../home/paths.js";
import { assertTaskId } from "../home/task-id.js";

import { gitSucceeds, runGit } from "./git.js";
import { recordGitLink, reopenCloneLink } from "./git-link.js";
import { taskBranch } from "./task-branch.js";
import { assertTaskCheckout } from "./task-checkout.js";
import type { TaskWorkspace } from "./types.js";

export interface TaskWorktreeRef {
  repoRoot: string;
  taskId: string;
}

/** `<repo>/.devflow/worktrees/<taskId>`: the coder's own checkout (a repository of its own, ADR 0025). */
export function taskWorktreePath(repoRoot: string, taskId: string): string {
  return join(worktreesDir(repoRoot), assertTaskId(taskId));
}

/**
 * Creates the coder's checkout of the user's repository at its current HEAD (ADR 0025): a
 * repository of its own under `.devflow/worktrees/<taskId>` (what `git clone --shared` makes, minus
 * the remote: its objects borrowed from the user's through `objects/info/alternates`), on its own
 * branch `devflow/<taskId>`. Its `.git` is not the user's, so the user's hooks, config,
 * `info/exclude`, refs and worktree bookkeeping are not reachable through git from there, and no
 * `origin` remote points back at the user's repository. In the user's repository devflow creates
 * `refs/heads/devflow/<taskId>` at the base (create-only); from then on only devflow moves it
 * (`commitOnTaskBranch`). An existing branch or folder is refused: whether to resume is the
 * caller's decision (see openTaskWorktree).
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
      `task checkout folder already exists: ${worktree}; resume that task (--resume) or remove it (\`rm -rf ${worktree}\`) to start over`,
    );
  }
  ensureDevflowDir(repoRoot);
  mkdirSync(worktreesDir(repoRoot), { recursive: true });
  // Branch from the resolved sha, so a commit landing meanwhile cannot shift the base.
  const baseCommit = (await runGit(repoRoot, ["rev-parse", "--verify", "HEAD^{commit}"])).trim();
  const userObjects = resolve(
    repoRoot,
    (await runGit(repoRoot, ["rev-parse", "--git-path", "objects"])).trim(),
  );
  // Create-only (old value: none), so a branch appearing meanwhile is never overwritten.
  await runGit(repoRoot, [
    "update-ref",
    "-m",
    "devflow: task branch",
    `refs/heads/${branch}`,
    baseCommit,
    "",
  ]);
  try {
    await cloneShared(worktree, userObjects, branch, baseCommit);
  } catch (error) {
    await rm(worktree, { recursive: true, force: true });
    await runGit(repoRoot, ["update-ref", "-d", `refs/heads/${branch}`, baseCommit]).catch(() => undefined);
    throw error;
  }
  const gitLink = await recordGitLink(worktree);
  return { repoRoot, worktree, branch, baseCommit, kind: "worktree", gitLink };
}

/**
 * `git clone --shared --no-checkout --template=` of the user's repository without its remote and
 * refs: `init` (no template: no sample hooks, no `info/exclude`), the user's objects as alternates,
 * the branch at the base, then the base tree checked out. No git of the user's runs for it.
 */
async function cloneShared(
  worktree: string,
  userObjects: string,
  branch: string,
  baseCommit: string,
): Promise<void> {
  mkdirSync(worktree, { recursive: true });
  await runGit(worktree, ["init", "-q", "--template=", worktree]);
  mkdirSync(join(worktree, ".git", "objects", "info"), { recursive: true });
  writeFileSync(join(worktree, ".git", "objects", "info", "alternates"), `${userObjects}\n`);
  await runGit(worktree, ["symbolic-ref", "HEAD", `refs/heads/${branch}`]);
  await runGit(worktree, ["update-ref", `refs/heads/${branch}`, baseCommit]);
  await runGit(worktree, ["read-tree", "-u", "--reset", baseCommit]);
}

/** Reopens the coder's checkout of an earlier run of `taskId` (for --resume), checking it is still usable. */
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
      `the checkout of task ${taskId} is gone (${worktree}); it cannot be resumed, start the task again without --resume`,
    );
  }
  // Its `.git` must still be the directory devflow created (ADR 0022, adapted by ADR 0025).
  const gitLink = reopenCloneLink(worktree);
  await assertTaskCheckout(worktree, branch, baseCommit);
  return { repoRoot, worktree, branch, baseCommit, kind: "worktree", gitLink };
}

/**
 * Removes the task's checkout (with any uncommitted work in it) and, unless told otherwise, its
 * branch in the user's repository. Meant for tests and the playground; a finished task's branch
 * is the user's result.
 */
export async function removeTaskWorktree({
  repoRoot,
  taskId,
  deleteBranch = true,
}: TaskWorktreeRef & { deleteBranch?: boolean }): Promise<void> {
  const branch = taskBranch(taskId);
  await rm(taskWorktreePath(repoRoot, taskId), { recursive: true, force: true });
  if (deleteBranch && (await branchExists(repoRoot, branch))) {
    await runGit(repoRoot, ["branch", "-D", branch]);
  }
}

async function branchExists(repoRoot: string, branch: string): Promise<boolean> {
  return gitSucceeds(repoRoot, ["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`]);
}
