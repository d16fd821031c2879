/**
 * What src/daemon takes from src/home, without src/home/index.ts: that index loads the LangGraph
 * checkpointer, which `devflow list` and friends must not pay for (lazy commands, ADR 0042).
 */
export * from "./data-root.js";
export { type LockOwner, processIsGone } from "./owned-lock.js";
export { isTaskId } from "./task-id.js";
