/**
 * What src/daemon takes from src/home, without src/home/index.ts: that index loads the LangGraph
 * checkpointer, which `devflow list` and friends must not pay for (lazy commands, ADR 0042).
 */
export { acquireDaemonLock, daemonLockHolder } from "./daemon-lock.js";
export * from "./daemon-ops-paths.js";
export * from "./data-root.js";
export { type LockOwner, type OwnedLock, processIsGone } from "./owned-lock.js";
export { isTaskId } from "./task-id.js";
