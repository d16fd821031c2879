import { DevflowError } from "../errors/index.js";

const MAX_LENGTH = 200;

/**
 * The one rule for task ids (and record ids): an id becomes a folder name under `.devflow/` and,
 * for tasks, the branch `devflow/<id>`, so it must be safe as both. Letters, digits, `-`, `_`
 * and `.`, starting with a letter or digit; never `..` (it would climb out), never ending in `.`
 * or `.lock` (git refuses such ref names), at most 200 characters.
 */
export function isTaskId(id: string): boolean {
  return (
    /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(id) &&
    !id.includes("..") &&
    !id.endsWith(".lock") &&
    !id.endsWith(".") &&
    id.length <= MAX_LENGTH
  );
}

/** Returns the id, or throws the message a user sees for `--task-id` (exit code 2). */
export function assertTaskId(id: string): string {
  if (!isTaskId(id)) {
    throw new DevflowError(
      "TASK_ID_INVALID",
      `invalid task id ${JSON.stringify(id)}: use letters, digits, '-', '_' and '.', starting with a letter or digit, not ending in '.' or '.lock' (e.g. "add-login-form")`,
    );
  }
  return id;
}
