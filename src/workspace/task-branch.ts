import { assertTaskId } from "../home/task-id.js";

/** Prefix of every branch devflow creates; commits are only ever made on such a branch. */
export const TASK_BRANCH_PREFIX = "devflow/";

/** `devflow/<task id>`; the id is checked by the home's one task-id rule (safe as a ref name). */
export function taskBranch(taskId: string): string {
  return `${TASK_BRANCH_PREFIX}${assertTaskId(taskId)}`;
}
