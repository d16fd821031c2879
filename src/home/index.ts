export { openCheckpointer, openExistingCheckpointer } from "./checkpointer.js";
export {
  cacheDir,
  claimedTicketPath,
  DATA_ROOT_ENV,
  daemonConfigPath,
  dataDir,
  dataRoot,
  ensureDataRoot,
  leasePath,
  logsDir,
  parseClaimedName,
  QUEUE_STATES,
  type QueueState,
  queueDir,
  queuedTicketPath,
  queueTmpDir,
  repoClaimPath,
  ticketRecordDir,
} from "./data-root.js";
export { claimRecordId, freshTaskId, newThreadId, taskIdFromRequest } from "./mint-id.js";
export type { OwnedLock } from "./owned-lock.js";
export { type LockOwner, processIsGone } from "./owned-lock.js";
export {
  coderIndexRecord,
  DEVFLOW_DIR,
  devflowDir,
  ensureDevflowDir,
  idleCoderCheckoutsDir,
  listTasks,
  listVerifyCheckouts,
  processGroupsDir,
  RECORD_FILE,
  type RecordLane,
  recordFileLabel,
  recordRoot,
  repoRootOfTaskDir,
  statePath,
  taskDir,
  taskDirLabel,
  taskDirTaken,
  taskExists,
  threadLocksDir,
  verifyCheckoutDir,
  verifyGitDir,
  verifyIndexRecord,
  worktreesDir,
} from "./paths.js";
export { lockPlan } from "./plan-lock.js";
export { openPlanStore, planTaskId } from "./plan-store.js";
export {
  keepProposedRecord,
  keepProposedRevision,
  keepRecordHistory,
  readRecord,
  recordHistoryPath,
  writeRecord,
} from "./record-store.js";
export { assertTaskId, isTaskId } from "./task-id.js";
export { acquireTaskLock, lockTask, type TaskLockOptions, taskRunIsLive, withTaskLock } from "./task-lock.js";
export { openTaskStore } from "./task-store.js";
export { lockThread } from "./thread-lock.js";
export { type ThreadInfo, ThreadStore } from "./thread-store.js";
