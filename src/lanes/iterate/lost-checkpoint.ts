import type { ArtifactStore } from "../../artifacts/store.js";
import { DevflowError } from "../../errors/index.js";
import { statePath, taskDir, taskDirTaken } from "../../home/index.js";

// A request longer than this, or on several lines, is pointed at rather than quoted in the remedy.
const MAX_QUOTED_REQUEST = 200;

/**
 * `--resume` of an unfinished task whose checkpoint is not in state.sqlite (the file was deleted,
 * moved aside because it was corrupt, or replaced): the graph would start over from an empty
 * request, spend a Framer call and fail on a schema error. The artifacts cannot stand in for the
 * checkpoint (the coder's attempts, the open node), so the task is refused, before any model call,
 * with the command that starts the same request again as a new task.
 */
export async function lostCheckpointError(
  repoRoot: string,
  taskId: string,
  store: ArtifactStore,
): Promise<DevflowError<"CHECKPOINT_LOST">> {
  const task = await store.read("task_artifact");
  const newId = freeTaskId(repoRoot, taskId);
  const request = task?.request.trim();
  const restart =
    request === undefined
      ? `the task stopped before its request was stored; start it again with: devflow iterate --repo ${shellQuote(repoRoot)} --task-id ${newId} "<the request>"`
      : request.length <= MAX_QUOTED_REQUEST && !request.includes("\n")
        ? `start the same request again as a new task: devflow iterate --repo ${shellQuote(repoRoot)} --task-id ${newId} ${shellQuote(request)}`
        : `start the same request again as a new task: devflow iterate --repo ${shellQuote(repoRoot)} --task-id ${newId} "<the request in ${taskDir(repoRoot, taskId)}/task_artifact.json>"`;
  return new DevflowError(
    "CHECKPOINT_LOST",
    `task "${taskId}" has no checkpoint in ${statePath(repoRoot)} (the file was deleted or replaced), so it cannot be resumed; its artifacts in ${taskDir(repoRoot, taskId)} are kept. To redo it, ${restart}`,
  );
}

function freeTaskId(repoRoot: string, taskId: string): string {
  for (let n = 2; ; n++) {
    const id = `${taskId}-${n}`;
    if (!taskDirTaken(repoRoot, id)) return id;
  }
}

function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}
