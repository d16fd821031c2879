export { withBaseWorktree } from "./base-worktree.js";
export { type CloneRequest, cloneForTask, openTaskClone } from "./clone.js";
export { type CommitSummary, commitAll, commitsSince, headCommit } from "./commits.js";
export { DEVFLOW_DIR, ensureDevflowDir, worktreesDir } from "./devflow-dir.js";
export { isGitUrl, redactUrl } from "./git-url.js";
export { assertGitRepo } from "./repo.js";
export { type RepoMapOptions, repoMap } from "./repo-map.js";
export { diffTrees, snapshotTree, type TreeDiff } from "./snapshot.js";
export { assertTaskId, TASK_BRANCH_PREFIX, taskBranch } from "./task-id.js";
export { acquireTaskLock, type TaskLockOptions } from "./task-lock.js";
export {
  createTaskWorktree,
  openTaskWorktree,
  removeTaskWorktree,
  type TaskWorktreeRef,
  taskWorktreePath,
} from "./task-worktree.js";
export type { TaskWorkspace } from "./types.js";
