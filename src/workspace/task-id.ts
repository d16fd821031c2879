import { DevflowError } from "../errors/index.js";

/** Prefix of every branch devflow creates; commits are only ever made on such a branch. */
export const TASK_BRANCH_PREFIX = "devflow/";

/**
 * Task ids become a branch name and a folder name, so they are restricted to characters that
 * are safe in both (a slug, optionally with dots and underscores).
 */
export function assertTaskId(taskId: string): string {
  const valid =
    /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(taskId) &&
    !taskId.includes("..") &&
    !taskId.endsWith(".lock") &&
    !taskId.endsWith(".") &&
    taskId.length <= 200;
  if (!valid) {
    throw new DevflowError(
      "TASK_ID_INVALID",
      `invalid task id ${JSON.stringify(taskId)}: use letters, digits, '-', '_' and '.', starting with a letter or digit (e.g. "add-login-form")`,
    );
  }
  return taskId;
}

export function taskBranch(taskId: string): string {
  return `${TASK_BRANCH_PREFIX}${assertTaskId(taskId)}`;
}
