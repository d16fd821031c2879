import { statSync } from "node:fs";
import type { IteratorRun, Terminal } from "../../../artifacts/schemas/index.js";
import {
  listTasks,
  openTaskStore,
  processGroupsDir,
  taskDir,
  taskRunIsLive,
  verifyCheckoutDir,
  verifyGitDir,
} from "../../../home/index.js";
import { ledgerHasLiveRun } from "../../../process/group-ledger.js";
import { listTaskBranches, taskBranch, taskWorktreePath } from "../../../workspace/index.js";
import { diskUsage } from "./disk-usage.js";

/**
 * What a task is now: its verdict when it finished; `running` while a devflow process holds its
 * lock or a process it recorded in its group ledger lives; `needs_more_context` without a verdict
 * while it waits for answers; `interrupted` when it stopped without a verdict (a crash, Ctrl-C, a
 * kill: `--resume` continues it); `unreadable` when its run record
 * cannot be read (or was never written: a setup that died before it).
 */
export type TaskState = Terminal["verdict"] | "running" | "interrupted" | "unreadable";

export interface TaskEntry {
  id: string;
  state: TaskState;
  /** A verdict is recorded: the run will not change anything any more. */
  finished: boolean;
  reason: string | null;
  branch: string;
  /** Where `devflow/<id>` stands in the user's repository; null when the branch does not exist. */
  branchCommit: string | null;
  /** The result commit the verdict names (completed), else null. */
  resultCommit: string | null;
  baseCommit: string | null;
  createdAt: string | null;
  /** The run's last recorded activity (its record's last write, else its dir's mtime). */
  updatedAt: string | null;
  paths: { artifacts: string; worktree: string; verify: string; verifyGitDir: string };
  /** Bytes on disk: the coder's checkout, the verification checkout with its git dir, the artifacts. */
  bytes: { worktree: number; verify: number; artifacts: number; total: number };
}

/** Whether a devflow process works on the task right now: its lock's owner, or its group ledger. */
export const taskIsLive = (repoRoot: string, taskId: string): boolean =>
  taskRunIsLive(repoRoot, taskId) || ledgerHasLiveRun(processGroupsDir(repoRoot, taskId));

/** Every iterate task of the repository, newest first. Read-only: takes no lock, writes nothing. */
export async function listTaskEntries(repoRoot: string): Promise<TaskEntry[]> {
  const branches = await listTaskBranches(repoRoot);
  const entries = await Promise.all(listTasks(repoRoot).map((id) => readTaskEntry(repoRoot, id, branches)));
  return entries
    .filter((e): e is TaskEntry => e !== null)
    .sort((a, b) => (b.createdAt ?? "").localeCompare(a.createdAt ?? "") || a.id.localeCompare(b.id));
}

/** One task's entry; null when `id` is not a task id (a stray folder under .devflow/iterate). */
export async function readTaskEntry(
  repoRoot: string,
  id: string,
  branches?: Map<string, string>,
): Promise<TaskEntry | null> {
  let artifacts: string;
  try {
    artifacts = taskDir(repoRoot, id);
  } catch {
    return null;
  }
  const known = branches ?? (await listTaskBranches(repoRoot));
  const run = await readRun(repoRoot, id);
  const live = taskIsLive(repoRoot, id);
  const state: TaskState = live
    ? "running"
    : run === null
      ? "unreadable"
      : (run.terminal?.verdict ??
        // Paused at a question (an interactive driver asked and nobody answered yet).
        (run.run_state === "needs_more_context" ? "needs_more_context" : "interrupted"));
  const paths = {
    artifacts,
    worktree: taskWorktreePath(repoRoot, id),
    verify: verifyCheckoutDir(repoRoot, id),
    verifyGitDir: verifyGitDir(repoRoot, id),
  };
  const bytes = {
    worktree: diskUsage(paths.worktree),
    verify: diskUsage(paths.verify) + diskUsage(paths.verifyGitDir),
    artifacts: diskUsage(paths.artifacts),
  };
  return {
    id,
    state,
    finished: Boolean(run?.terminal) && !live,
    reason: run?.terminal?.reason ?? null,
    branch: taskBranch(id),
    branchCommit: known.get(id) ?? null,
    resultCommit: run?.terminal?.commit ?? null,
    baseCommit: run?.workspace.base_commit ?? null,
    createdAt: run?.created_at ?? mtimeOf(artifacts),
    updatedAt: run?.updated_at ?? mtimeOf(artifacts),
    paths,
    bytes: { ...bytes, total: bytes.worktree + bytes.verify + bytes.artifacts },
  };
}

/**
 * The coder backend an unfinished task ran with (`iterator_run.coder_backend`); null when the task
 * has no readable record or already has its verdict (a resume then only reports it).
 */
export async function unfinishedTaskCoder(repoRoot: string, id: string): Promise<string | null> {
  const run = await readRun(repoRoot, id);
  return run && !run.terminal ? run.coder_backend : null;
}

async function readRun(repoRoot: string, id: string): Promise<IteratorRun | null> {
  try {
    return await openTaskStore(repoRoot, id).read("iterator_run");
  } catch {
    return null;
  }
}

function mtimeOf(path: string): string | null {
  try {
    return statSync(path).mtime.toISOString();
  } catch {
    return null;
  }
}
