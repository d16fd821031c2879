import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { assertTaskId, isTaskId } from "./task-id.js";

/**
 * Every path under `<repo>/.devflow/` is built here and nowhere else, so the layout of devflow's
 * home (docs/architecture.md) has one owner:
 *
 *   .devflow/.gitignore            `*`: nothing devflow writes shows up in git status
 *   .devflow/state.sqlite          LangGraph checkpoints (lane and chat threads) + chat_threads table
 *   .devflow/iterate/<task id>/    an iterate task's artifacts (the ArtifactStore's dir)
 *   .devflow/insight/<record id>/  an insight answer
 *   .devflow/idea/<record id>/     an idea brief
 *   .devflow/worktrees/<task id>   a task's checkout (the coder's)
 *   .devflow/verify/<task id>      the task's verification checkout (seam, integrity, regression run here)
 *   .devflow/verify/<task id>.git  its git dir: devflow's own object store for snapshots (ADR 0024)
 *   .devflow/iterate/<task id>/verify-index.json  the hash of the index devflow's last reset of that
 *                                  checkout wrote: lets a later task adopt it without a full rewrite (ADR 0039)
 *   .devflow/chat/<thread id>.lock the lock of a chat thread open in a process (+ `.owner`, ADR 0035)
 */
export const DEVFLOW_DIR = ".devflow";

/** The lanes that leave a record of their own (iterate has its task dirs). */
export type RecordLane = "insight" | "idea";

/** `<repo>/.devflow` */
export const devflowDir = (repoRoot: string): string => join(repoRoot, DEVFLOW_DIR);

/**
 * Creates `<repo>/.devflow/` with a `.gitignore` of `*`, so nothing devflow writes there (state,
 * artifacts, worktrees) ever shows up in `git status` or a commit. The user's own .gitignore is
 * never touched. Returns the `.devflow` path.
 */
export function ensureDevflowDir(repoRoot: string): string {
  const dir = devflowDir(repoRoot);
  mkdirSync(dir, { recursive: true });
  const ignoreFile = join(dir, ".gitignore");
  const wanted = "*\n";
  if (readIfExists(ignoreFile) !== wanted) writeFileSync(ignoreFile, wanted);
  return dir;
}

/** `<repo>/.devflow/state.sqlite`: every checkpointed thread of this repository. */
export const statePath = (repoRoot: string): string => join(devflowDir(repoRoot), "state.sqlite");

/** `<repo>/.devflow/worktrees/`: task worktrees and temporary base checkouts. */
export const worktreesDir = (repoRoot: string): string => join(devflowDir(repoRoot), "worktrees");

/** `<repo>/.devflow/verify/<task id>`: the checkout devflow verifies each attempt's snapshot in. */
export const verifyCheckoutDir = (repoRoot: string, taskId: string): string =>
  join(devflowDir(repoRoot), "verify", assertTaskId(taskId));

/** `<repo>/.devflow/verify/<task id>.git`: the verification checkout's git dir, outside the checkout. */
export const verifyGitDir = (repoRoot: string, taskId: string): string =>
  join(devflowDir(repoRoot), "verify", `${assertTaskId(taskId)}.git`);

/** `<repo>/.devflow/verify/`: every task's verification checkout and git dir. */
const verifyRoot = (repoRoot: string): string => join(devflowDir(repoRoot), "verify");

/**
 * Ids of the tasks that have a verification checkout (a work tree dir under `.devflow/verify/`),
 * sorted: the candidates a new task may adopt (ADR 0039).
 */
export function listVerifyCheckouts(repoRoot: string): string[] {
  try {
    return readdirSync(verifyRoot(repoRoot), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !entry.name.endsWith(".git") && isTaskId(entry.name))
      .map((entry) => entry.name)
      .sort();
  } catch {
    return [];
  }
}

/**
 * `<repo>/.devflow/iterate/<task id>/verify-index.json`: the hash (and time) of the index devflow's
 * last reset of the task's verification checkout wrote. Kept with the task's artifacts, which a
 * confined test run never sees, so the index of an idle checkout can be trusted only if it still
 * hashes to it (ADR 0039).
 */
export const verifyIndexRecord = (repoRoot: string, taskId: string): string =>
  join(taskDir(repoRoot, taskId), "verify-index.json");

/**
 * `<repo>/.devflow/iterate/<task id>/coder-index.json`: the hash (and time) of the snapshot index
 * devflow's last snapshot of the task's coder checkout wrote (ADR 0050, fourth slice). Like
 * verify-index.json, kept with the artifacts no coder or test run sees: a finished task's coder
 * checkout is reused only with an index that still hashes to it.
 */
export const coderIndexRecord = (repoRoot: string, taskId: string): string =>
  join(taskDir(repoRoot, taskId), "coder-index.json");

/**
 * `<repo>/.devflow/worktrees/.idle/`: finished tasks' coder checkouts kept for the next task to
 * reuse (`<task id>/`, with devflow's copy of its snapshot index as `<task id>.index`). Not a task
 * id, so listings of task checkouts never see it.
 */
export const idleCoderCheckoutsDir = (repoRoot: string): string => join(worktreesDir(repoRoot), ".idle");

/** `<repo>/.devflow/chat/`: the locks of chat threads open in a process (`<thread id>.lock`, `.owner`). */
export const threadLocksDir = (repoRoot: string): string => join(devflowDir(repoRoot), "chat");

/** `<repo>/.devflow/iterate/` */
const tasksRoot = (repoRoot: string): string => join(devflowDir(repoRoot), "iterate");

/** `.devflow/iterate/<task id>`, relative to the repository root (for messages and records). */
export const taskDirLabel = (taskId: string): string => join(DEVFLOW_DIR, "iterate", assertTaskId(taskId));

/** `<repo>/.devflow/iterate/<task id>/`: the task's artifact dir. The id is checked first. */
export const taskDir = (repoRoot: string, taskId: string): string => join(repoRoot, taskDirLabel(taskId));

/** The repository a task dir (`<repo>/.devflow/iterate/<task id>`) belongs to: the inverse of taskDir. */
export const repoRootOfTaskDir = (artifactDir: string): string => resolve(artifactDir, "..", "..", "..");

/**
 * `<repo>/.devflow/iterate/<task id>/process-groups/`: one record per child process group a run of
 * the task started and still waits on (ADR 0033); the next run sweeps what a crashed one left.
 */
export const processGroupsDir = (repoRoot: string, taskId: string): string =>
  join(taskDir(repoRoot, taskId), "process-groups");

/** A task exists once its run record is written (an empty or half-made dir is not a task). */
export const taskExists = (repoRoot: string, taskId: string): boolean =>
  existsSync(join(taskDir(repoRoot, taskId), "iterator_run.json"));

/** Whether anything (even a half-made dir) occupies the task's id: a new task must not reuse it. */
export const taskDirTaken = (repoRoot: string, taskId: string): boolean =>
  existsSync(taskDir(repoRoot, taskId));

/** Ids of the repository's iterate tasks (any dir under .devflow/iterate), sorted. */
export function listTasks(repoRoot: string): string[] {
  try {
    return readdirSync(tasksRoot(repoRoot)).sort();
  } catch {
    return [];
  }
}

/** `<repo>/.devflow/<lane>/` */
export const recordRoot = (repoRoot: string, lane: RecordLane): string => join(devflowDir(repoRoot), lane);

/** `.devflow/<lane>/<id>/<file>.json`, relative to the repository root. */
export const recordFileLabel = (lane: RecordLane, id: string): string =>
  join(DEVFLOW_DIR, lane, assertTaskId(id), `${RECORD_FILE[lane]}.json`);

/** The artifact each record lane writes. */
export const RECORD_FILE = { insight: "insight_answer", idea: "idea_brief" } as const;

function readIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
