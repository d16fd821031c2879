import { existsSync, mkdirSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { DevflowError } from "../errors/index.js";
import { ensureDevflowDir, worktreesDir } from "../home/paths.js";
import { assertTaskId } from "../home/task-id.js";

import { type DeclinedCoderCheckout, reuseIdleCoderCheckout } from "./coder-checkout-reuse.js";
import { gitSucceeds, runGit } from "./git.js";
import { recordNewCloneLink, reopenCloneLink } from "./git-link.js";
import { isObjectId } from "./object-id.js";
import { initOwnCloneRepo } from "./own-clone-repo.js";
import { taskBranch } from "./task-branch.js";
import { assertTaskCheckout } from "./task-checkout.js";
import type { TaskWorkspace } from "./types.js";
import { userObjectDir } from "./verify-checkout.js";
import { readOwnIndex } from "./verify-index-record.js";

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
export async function createTaskWorktree(ref: TaskWorktreeRef): Promise<TaskWorkspace> {
  return makeTaskWorktree(await planTaskWorktree(ref));
}

/** What createTaskWorktree checked and resolved before it makes anything. */
export interface PlannedTaskWorktree {
  repoRoot: string;
  taskId: string;
  /** The user's HEAD, resolved once: a commit landing meanwhile cannot shift the base. */
  baseCommit: string;
  /** The workspace the checkout will be, for records written before it is made. */
  workspace: TaskWorkspace;
}

/**
 * The refusals of createTaskWorktree (an existing branch or folder) and the base commit, with no
 * side effect but `.devflow/`: a caller records the task's run before the checkout is made, so a
 * crash while making it leaves a task `--resume` can finish (remakeTaskWorktree).
 */
export async function planTaskWorktree({
  repoRoot,
  taskId,
  baseCommit: from,
}: TaskWorktreeRef & {
  /** Start from this commit instead of the user's HEAD (the compose lane stacks tasks, ADR 0055). */
  baseCommit?: string;
}): Promise<PlannedTaskWorktree> {
  const branch = taskBranch(taskId);
  const worktree = taskWorktreePath(repoRoot, taskId);
  if (from !== undefined && !isObjectId(from))
    throw new DevflowError("BAD_REVISION", `invalid base commit ${JSON.stringify(from)}: pass a commit sha`);
  // The base and whether the branch exists, from one git process (issue 11: each costs ~17 ms).
  const [base, branchLine] = (
    await runGit(repoRoot, ["cat-file", "--batch-check=%(objectname) %(objecttype)"], {
      input: `${from ?? "HEAD"}^{commit}\nrefs/heads/${branch}\n`,
    })
  ).split("\n");
  if (branchLine !== undefined && !branchLine.endsWith(" missing")) {
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
  const resolved = /^([0-9a-f]{40,64}) commit$/.exec(base ?? "")?.[1];
  // No such commit (an unborn HEAD, say): git's own refusal, as before.
  const baseCommit =
    resolved ?? (await runGit(repoRoot, ["rev-parse", "--verify", `${from ?? "HEAD"}^{commit}`])).trim();
  // The git link is recorded when the checkout is made.
  return plannedAt(repoRoot, taskId, baseCommit);
}

/** The checkout of `taskId` at `baseCommit`, as planned (where it goes, its branch); not made yet. */
function plannedAt(repoRoot: string, taskId: string, baseCommit: string): PlannedTaskWorktree {
  const workspace = {
    repoRoot,
    worktree: taskWorktreePath(repoRoot, taskId),
    branch: taskBranch(taskId),
    baseCommit,
    kind: "worktree" as const,
  };
  return { repoRoot, taskId, baseCommit, workspace };
}

/**
 * What became of the idle coder checkouts a new task's setup looked at (ADR 0050): the one reused,
 * and those claimed but removed instead (in use, untrusted, a reset that failed), with why.
 */
export interface CoderCheckoutReuse {
  reusedFrom: string | null;
  declined: DeclinedCoderCheckout[];
}

/**
 * Whether a new checkout may start from an idle one (`idle`, default true; false: the base checked
 * out fresh without looking at any, the caller's policy), and where to say what became of those
 * looked at (`report`).
 */
export interface IdleReuseOptions {
  idle?: boolean;
  report?: CoderCheckoutReuse;
}

/** Makes the planned checkout: the user's task branch at the base (create-only), then the clone. */
export async function makeTaskWorktree(
  plan: PlannedTaskWorktree,
  reuse: IdleReuseOptions = {},
): Promise<TaskWorkspace> {
  const { repoRoot, baseCommit } = plan;
  const { branch } = plan.workspace;
  // Create-only (old value: none), so a branch appearing meanwhile is never overwritten.
  await runGit(repoRoot, [
    "update-ref",
    "-m",
    "devflow: task branch",
    `refs/heads/${branch}`,
    baseCommit,
    "",
  ]);
  return cloneAtBase(plan, true, reuse);
}

/**
 * Makes the coder's checkout of a task again, for a task whose run record is written but whose lane
 * never started (no checkpoint, nothing framed: a crash while the task was set up, ADR 0033), so
 * no coder has worked in it: the folder is removed and made again from the recorded base. The
 * user's task branch is created if the crash came before it, kept if it is at the base, and a
 * branch anywhere else is refused (not devflow's doing: it only moves it after a gate passed).
 */
export async function remakeTaskWorktree({
  repoRoot,
  taskId,
  baseCommit,
  reuse = {},
}: TaskWorktreeRef & { baseCommit: string; reuse?: IdleReuseOptions }): Promise<TaskWorkspace> {
  const plan = plannedAt(repoRoot, taskId, baseCommit);
  const { branch, worktree } = plan.workspace;
  await rm(worktree, { recursive: true, force: true });
  if (!(await branchExists(repoRoot, branch))) return makeTaskWorktree(plan, reuse);
  const head = (await runGit(repoRoot, ["rev-parse", "--verify", `refs/heads/${branch}^{commit}`])).trim();
  if (head !== baseCommit)
    throw new DevflowError(
      "CHECKOUT_UNUSABLE",
      `task ${taskId} was set up but never started, and its branch ${branch} in ${repoRoot} is at ${head.slice(0, 10)}, not at its base ${baseCommit.slice(0, 10)}; delete the branch (\`git branch -D ${branch}\`) and the task's folder, then start the task again without --resume`,
    );
  return cloneAtBase(plan, false, reuse);
}

/** The clone of the planned checkout; a failure removes it (and the branch, when this call made it). */
async function cloneAtBase(
  plan: PlannedTaskWorktree,
  branchMadeHere: boolean,
  reuse: IdleReuseOptions,
): Promise<TaskWorkspace> {
  const { repoRoot, baseCommit } = plan;
  const { branch, worktree } = plan.workspace;
  mkdirSync(worktreesDir(repoRoot), { recursive: true });
  // The same question the verification checkout asks next: answered once per process (issue 11).
  const userObjects = await userObjectDir(repoRoot);
  try {
    // A finished task's idle checkout, reset to this base, costs what differs; else a full checkout.
    const { report } = reuse;
    const reused =
      reuse.idle === false
        ? null
        : await reuseIdleCoderCheckout({
            repoRoot,
            worktree,
            branch,
            baseCommit,
            userObjects,
            ...(report ? { declined: report.declined } : {}),
          });
    if (report) report.reusedFrom = reused?.from ?? null;
    if (!reused) await cloneShared(worktree, userObjects, branch, baseCommit);
  } catch (error) {
    await rm(worktree, { recursive: true, force: true });
    if (branchMadeHere)
      await runGit(repoRoot, ["update-ref", "-d", `refs/heads/${branch}`, baseCommit]).catch(() => undefined);
    throw error;
  }
  // The `.git` directory was made just now, by devflow: its link is known without asking git.
  const gitLink = recordNewCloneLink(worktree);
  // And the index its checkout of the base wrote, before any coder can have run there: the first
  // snapshot starts from its stat data instead of hashing every file (seedSnapshotIndex).
  return { ...plan.workspace, gitLink, baseIndex: readOwnIndex(join(worktree, ".git", "index")) };
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
  await initOwnCloneRepo(worktree, userObjects, branch, baseCommit);
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
