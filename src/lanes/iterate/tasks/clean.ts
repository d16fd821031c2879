import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { DevflowError } from "../../../errors/index.js";
import { lockTask, openExistingCheckpointer, processGroupsDir, taskDirTaken } from "../../../home/index.js";
import { ledgerHasLiveRun, sweepRecordedGroups } from "../../../process/group-ledger.js";
import { deadScratchDirs } from "../../../process/scratch-dir.js";
import { deleteTaskBranch, listTaskBranches, removeTaskCheckout } from "../../../workspace/index.js";
import { diskUsage } from "./disk-usage.js";
import { abandonedClaims, listIdleCheckouts, removeClaim, removeIdleCheckout } from "./idle-checkouts.js";
import { listTaskEntries, readTaskEntry, type TaskEntry, type TaskState } from "./inventory.js";
import { listOrphans } from "./orphans.js";

/** Which tasks `devflow clean` takes. Filters combine (and); a named task is taken alone. */
export interface CleanSelection {
  /** Exactly this task (its completed branch too, with `branches`). */
  taskId?: string;
  /** Tasks whose last activity is older than this many milliseconds. */
  olderThanMs?: number;
  /** Tasks that did not complete: blocked, exhausted, needs_more_context, interrupted, unreadable. */
  failed?: boolean;
  /** Branches and coder checkouts whose task folder is gone (orphans.ts, ADR 0049). */
  orphans?: boolean;
  /**
   * Idle coder checkouts (`.devflow/worktrees/.idle/`, ADR 0050) instead of tasks: all of them, or
   * with `olderThanMs` those retired longer ago. `olderThanMs` alone (without `failed`) takes the
   * old idle checkouts along with the old tasks.
   */
  idle?: boolean;
}

export interface CleanOptions extends CleanSelection {
  /** Also delete `devflow/<id>` (never a completed task's unless it is the named `taskId`). */
  branches: boolean;
  /** Say what would go, remove nothing. */
  dryRun: boolean;
  /** For tests: the clock `olderThanMs` is measured from. */
  now?: number;
}

export interface CleanedTask {
  id: string;
  state: TaskState;
  /** The folders removed (or, dry run, that would be). */
  removed: string[];
  bytes: number;
  /** What happened to `devflow/<id>`: deleted, kept (and why), or there was none. */
  branch: { name: string; action: "deleted" | "kept" | "absent"; why: string | null };
}

export interface CleanedOrphan {
  id: string;
  branch: { name: string; action: "deleted" | "kept" | "absent"; why: string | null };
  checkout: string | null;
  bytes: number;
}

export interface CleanReport {
  dryRun: boolean;
  cleaned: CleanedTask[];
  /** Tasks the selection matched but clean left alone (a live run). */
  skipped: Array<{ id: string; state: TaskState; why: string }>;
  /** Coder scratch dirs of dead runs under the OS temp dir. */
  scratchDirs: string[];
  /** `.idle/.clean-*` claims a killed clean left mid-removal (idle-checkouts.ts abandonedClaims). */
  abandonedClaims: string[];
  /** With `orphans`: what was removed of each orphan (a branch that moved meanwhile is kept). */
  orphans: CleanedOrphan[];
  /** Idle coder checkouts removed (or, dry run, that would be); one a task took meanwhile is not here. */
  idle: CleanedIdle[];
  /** Idle coder checkouts the selection left: retired more recently than `olderThanMs`. */
  idleKept: CleanedIdle[];
  freedBytes: number;
}

export interface CleanedIdle {
  /** The task whose coder checkout it was. */
  id: string;
  path: string;
  bytes: number;
  /** Epoch ms it went idle (the mtime of its `.idle/<id>.index`, see idle-checkouts.ts). */
  retiredAt: number;
}

/** Verdicts (and states) `--failed` selects: everything that did not complete or hand over. */
export const FAILED_STATES: readonly TaskState[] = [
  "blocked",
  "exhausted",
  "needs_more_context",
  "interrupted",
  "unreadable",
];

/**
 * Removes what the selected tasks left: the coder's checkout, the verification checkout and its git
 * dir (the idle checkout ADR 0039 lets a new task adopt goes with its `verify-index.json`), the
 * artifacts, the task's checkpoints in `state.sqlite`, process groups a dead run left, and scratch
 * dirs of dead runs. Each task is cleaned holding its lock, so a run starting (or a new task
 * adopting its verification checkout) meanwhile is never cut short; a live task is never touched.
 * The user's checkout and refs are not written, but for `devflow/<id>` with `branches`, deleted by
 * compare-and-swap. The report says what went and how many bytes that freed. A named task's idle
 * coder checkout (`.idle/<id>`, ADR 0050) goes with it, and so do the claims a killed clean left.
 */
export async function cleanTasks(repoRoot: string, options: CleanOptions): Promise<CleanReport> {
  const report: CleanReport = {
    dryRun: options.dryRun,
    cleaned: [],
    skipped: [],
    scratchDirs: [],
    abandonedClaims: [],
    orphans: [],
    idle: [],
    idleKept: [],
    freedBytes: 0,
  };
  const selected = options.idle ? [] : await selectTasks(repoRoot, options);
  if (options.idle || (options.olderThanMs !== undefined && !options.failed && options.taskId === undefined))
    cleanIdle(repoRoot, options, report);
  // The named task's coder checkout may wait idle for reuse (ADR 0050): it goes with the task. Listed
  // first, so a linked `.idle` refuses the whole clean before anything is removed (idle-checkouts.ts).
  const namedIdle = options.taskId === undefined ? [] : listIdleCheckouts(repoRoot, options.taskId);
  if (options.orphans) {
    report.orphans = await cleanOrphans(repoRoot, options.dryRun);
    for (const o of report.orphans) report.freedBytes += o.bytes;
  }
  const branches = await listTaskBranches(repoRoot);
  const saver = options.dryRun ? null : openExistingCheckpointer(repoRoot);
  try {
    for (const entry of selected) {
      if (entry.state === "running") {
        report.skipped.push({ id: entry.id, state: entry.state, why: "a devflow run is working on it" });
        continue;
      }
      const branch = branchPlan(entry, options, branches.get(entry.id) ?? null);
      const removed = [
        entry.paths.worktree,
        entry.paths.verify,
        entry.paths.verifyGitDir,
        entry.paths.artifacts,
      ];
      const cleaned: CleanedTask = {
        id: entry.id,
        state: entry.state,
        removed: removed.filter((p) => diskUsage(p) > 0),
        bytes: entry.bytes.total,
        branch,
      };
      if (!options.dryRun) {
        const done = await underLock(repoRoot, entry.id, async () => {
          // Rechecked under the lock: only the ledger can still say live (the lock is ours now).
          if (ledgerHasLiveRun(processGroupsDir(repoRoot, entry.id))) return false;
          await removeTask(repoRoot, entry, cleaned);
          if (branch.action === "deleted" && entry.branchCommit)
            await deleteTaskBranch(repoRoot, entry.id, entry.branchCommit).catch(() => {
              cleaned.branch = {
                ...branch,
                action: "kept",
                why: "it moved since it was read (left alone)",
              };
            });
          await saver?.deleteThread(entry.id);
          return true;
        });
        if (!done) {
          report.skipped.push({ id: entry.id, state: "running", why: "a devflow run is working on it" });
          continue;
        }
        rmSync(entry.paths.artifacts, { recursive: true, force: true });
      }
      report.cleaned.push(cleaned);
      report.freedBytes += cleaned.bytes;
    }
  } finally {
    saver?.db.close();
  }
  for (const idle of namedIdle) {
    if (report.skipped.some((s) => s.id === idle.id)) continue;
    if (!options.dryRun && removeIdleCheckout(repoRoot, idle.id) === "gone") continue;
    report.idle.push(idle);
    report.freedBytes += idle.bytes;
  }
  for (const claim of abandonedClaims(repoRoot)) {
    if (!options.dryRun) removeClaim(claim.path);
    report.abandonedClaims.push(claim.path);
    report.freedBytes += claim.bytes;
  }
  for (const dir of deadScratchDirs()) {
    report.freedBytes += diskUsage(dir);
    if (!options.dryRun) rmSync(dir, { recursive: true, force: true });
    report.scratchDirs.push(dir);
  }
  return report;
}

async function selectTasks(repoRoot: string, options: CleanOptions): Promise<TaskEntry[]> {
  if (options.taskId !== undefined) {
    const entry = await readTaskEntry(repoRoot, options.taskId);
    if (!entry || entry.createdAt === null)
      throw new DevflowError(
        "TASK_NOT_FOUND",
        `no task "${options.taskId}" in ${repoRoot}; devflow runs lists the tasks`,
      );
    if (entry.state === "running")
      throw new DevflowError(
        "TASK_LOCKED",
        `task ${entry.id} is running; clean it once it has finished (or stop it first)`,
      );
    return [entry];
  }
  if (options.olderThanMs === undefined && !options.failed) {
    if (options.orphans) return [];
    throw new DevflowError(
      "BAD_OPTION",
      "say what to clean: --task <id>, --older-than <duration> (e.g. 7d), --failed, --orphans or --idle",
    );
  }
  const now = options.now ?? Date.now();
  return (await listTaskEntries(repoRoot)).filter((e) => {
    if (options.failed && !FAILED_STATES.includes(e.state) && e.state !== "running") return false;
    if (options.olderThanMs !== undefined) {
      const at = Date.parse(e.updatedAt ?? "");
      if (!Number.isFinite(at) || now - at < options.olderThanMs) return false;
    }
    return true;
  });
}

function branchPlan(entry: TaskEntry, options: CleanOptions, at: string | null): CleanedTask["branch"] {
  const name = entry.branch;
  if (at === null) return { name, action: "absent", why: null };
  if (!options.branches) return { name, action: "kept", why: "pass --branches to delete it" };
  if (entry.state === "completed" && options.taskId !== entry.id)
    return {
      name,
      action: "kept",
      why: `the result of a completed task: name it (--task ${entry.id} --branches) to delete it`,
    };
  return { name, action: "deleted", why: null };
}

/** Everything of the task but its lock (held) goes; the artifact dir itself after the lock is let go. */
async function removeTask(repoRoot: string, entry: TaskEntry, cleaned: CleanedTask): Promise<void> {
  // A run killed mid-way may have left its coder or test processes: end them first.
  await sweepRecordedGroups(processGroupsDir(repoRoot, entry.id));
  const checkout = await removeTaskCheckout(repoRoot, entry.id);
  if (checkout === "linked_worktree") {
    cleaned.removed = cleaned.removed.filter((p) => p !== entry.paths.worktree);
    cleaned.bytes -= entry.bytes.worktree;
  }
  rmSync(entry.paths.verify, { recursive: true, force: true });
  rmSync(entry.paths.verifyGitDir, { recursive: true, force: true });
  for (const name of safeReaddir(entry.paths.artifacts)) {
    if (name === "run.lock" || name === "run.owner") continue;
    rmSync(join(entry.paths.artifacts, name), { recursive: true, force: true });
  }
}

/**
 * Removes every orphan (a `devflow/<id>` branch or coder checkout whose task folder is gone): the
 * branch by compare-and-swap at the commit listed, so one that moved meanwhile is kept; the
 * checkout like a task's (a pre-ADR-0025 linked worktree through git). No task lock: taking it
 * would make the task folder; a new task cannot take the id while its branch exists, and an id
 * whose folder appeared since the listing is skipped.
 */
async function cleanOrphans(repoRoot: string, dryRun: boolean): Promise<CleanedOrphan[]> {
  const cleaned: CleanedOrphan[] = [];
  for (const orphan of await listOrphans(repoRoot)) {
    const done: CleanedOrphan = {
      id: orphan.id,
      branch: {
        name: orphan.branch,
        action: orphan.branchCommit === null ? "absent" : "deleted",
        why: null,
      },
      checkout: orphan.checkout,
      bytes: orphan.bytes,
    };
    if (!dryRun) {
      // A task of that id appeared since the listing: it is no orphan (and not ours to touch).
      if (taskDirTaken(repoRoot, orphan.id)) continue;
      if (orphan.checkout !== null && (await removeTaskCheckout(repoRoot, orphan.id)) === "linked_worktree") {
        done.checkout = null;
        done.bytes = 0;
      }
      if (orphan.branchCommit !== null)
        await deleteTaskBranch(repoRoot, orphan.id, orphan.branchCommit).catch(() => {
          done.branch = { ...done.branch, action: "kept", why: "it moved since it was read (left alone)" };
        });
    }
    cleaned.push(done);
  }
  return cleaned;
}

/**
 * Idle coder checkouts: each claimed by rename before it is deleted (removeIdleCheckout), so one a
 * task is taking is never cut from under it; one gone since the listing is left out silently.
 */
function cleanIdle(repoRoot: string, options: CleanOptions, report: CleanReport): void {
  const now = options.now ?? Date.now();
  for (const idle of listIdleCheckouts(repoRoot)) {
    if (options.olderThanMs !== undefined && now - idle.retiredAt < options.olderThanMs) {
      report.idleKept.push(idle);
      continue;
    }
    if (!options.dryRun && removeIdleCheckout(repoRoot, idle.id) === "gone") continue;
    report.idle.push(idle);
    report.freedBytes += idle.bytes;
  }
}

/** Runs `fn` holding the task's lock; false when a run holds it. */
async function underLock(repoRoot: string, taskId: string, fn: () => Promise<boolean>): Promise<boolean> {
  let release: () => Promise<void>;
  try {
    release = await lockTask(repoRoot, taskId, { onCompromised: () => {} });
  } catch {
    return false;
  }
  try {
    return await fn();
  } finally {
    await release();
  }
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
