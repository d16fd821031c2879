export {
  compareAndSwapRef,
  isAncestor,
  type TaskBranchState,
  taskBranchFindings,
  taskBranchHead,
  taskBranchRun,
  taskBranchState,
  userTaskBranchFindings,
} from "./branch-guard.js";
export { type CloneRequest, cloneForTask, openTaskClone, removeTaskClone } from "./clone.js";
export { type Retirement, retireCoderCheckout } from "./coder-checkout-reuse.js";
export { CODER_GITCONFIG_FILE, coderGitEnv } from "./coder-git-env.js";
export {
  type CommitSummary,
  commitAll,
  commitOnTaskBranch,
  commitsSince,
  headCommit,
  type TaskBranchCommit,
} from "./commits.js";
export { checkGitLink, type GitLink, gitLinkFindings } from "./git-link.js";
export { isGitUrl, redactUrl } from "./git-url.js";
export { idleClaimOwner, idleClaimPath } from "./idle-claim.js";
export { type IdleDir, idleDir } from "./idle-dir.js";
export { type IdleEntry, idleNames, listIdleEntries } from "./idle-listing.js";
export { isGitIgnored } from "./is-git-ignored.js";
export { removeDeadBaseWorktrees } from "./legacy-base-worktrees.js";
export { listGitFiles } from "./list-git-files.js";
export { isObjectId } from "./object-id.js";
export { landOnPlanBranch, planBranch, planBranchHead, planDiff } from "./plan-branch.js";
export { cloneForReading } from "./read-only-clone.js";
export { assertGitRepo } from "./repo.js";
export {
  compareFingerprints,
  compareObjectStores,
  type DevflowRefJudge,
  type FingerprintLimits,
  fingerprintRepo,
  type RepoFingerprint,
  uncommittedPaths,
} from "./repo-fingerprint.js";
export { type RepoMapOptions, repoMap } from "./repo-map.js";
export {
  type ChangedFilesAndLinks,
  changedFiles,
  changedFilesAndLinks,
  composeChanges,
  diffTrees,
  ignoredOutsideSnapshot,
  type PathChange,
  pathChanges,
  seedSnapshotIndex,
  snapshotTree,
  type TreeDiff,
} from "./snapshot.js";
export { TASK_BRANCH_PREFIX, taskBranch } from "./task-branch.js";
export {
  type CheckoutRemoval,
  deleteTaskBranch,
  listTaskBranches,
  removeTaskCheckout,
} from "./task-branches.js";
export {
  type CoderCheckoutReuse,
  createTaskWorktree,
  type IdleReuseOptions,
  makeTaskWorktree,
  openTaskWorktree,
  type PlannedTaskWorktree,
  planTaskWorktree,
  remakeTaskWorktree,
  removeTaskWorktree,
  type TaskWorktreeRef,
  taskWorktreePath,
} from "./task-worktree.js";
export {
  type FileFromBase,
  normalizeRepoPath,
  pathsInTree,
  type TreeWithBaseFiles,
  textInTree,
  treeWithBaseFiles,
} from "./tree-with-base-files.js";
export type { OwnIndex, TaskWorkspace } from "./types.js";
export { CHECK_HOOKS, type CheckHook, userHookPath } from "./user-hooks.js";
export {
  type KeptLink,
  openVerifyCheckout,
  type ResetReport,
  resetVerifyCheckout,
  symlinksLeavingRepo,
  type VerifyCheckout,
  type VerifyCheckoutRequest,
} from "./verify-checkout.js";
export { type AdoptedCheckout, adoptVerifyCheckout } from "./verify-checkout-adopt.js";
