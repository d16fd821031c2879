import { readdirSync, rmSync } from "node:fs";
import { listTasks, lockTask, processGroupsDir, taskRunIsLive } from "../../home/index.js";
import { type SweptGroup, sweepRecordedGroups } from "../../process/group-ledger.js";
import { processIsRunning } from "../../process/process-group.js";
import { deadScratchDirs } from "../../process/scratch-dir.js";
import { removeDeadBaseWorktrees } from "../../workspace/index.js";

/** What a crashed run left behind and the sweep removed (ADR 0033). */
export interface SweepReport {
  groups: Array<SweptGroup & { taskId: string }>;
  baseCheckouts: string[];
  scratchDirs: string[];
}

/**
 * Runs when a task starts and on --resume, with the task's lock held (so no live run of it
 * records anything): ends the process groups recorded by dead runs of this task and of every other
 * task whose lock can be taken (a live task's lock cannot: its groups are never touched), removes
 * `.base-*` checkouts and scratch dirs whose owner process is gone. The coder's checkout and the
 * verification checkout of a task are the task's, reused by --resume, and never removed here.
 */
export async function sweepDeadRuns(repoRoot: string, ownTaskId: string): Promise<SweepReport> {
  const groups: SweepReport["groups"] = [];
  for (const taskId of listTasks(repoRoot)) {
    const swept = await sweepTaskGroups(repoRoot, taskId, taskId === ownTaskId);
    groups.push(...swept.map((g) => ({ ...g, taskId })));
  }
  return {
    groups,
    baseCheckouts: await removeDeadBaseWorktrees(repoRoot, processIsRunning),
    scratchDirs: removeDeadScratchDirs(),
  };
}

async function sweepTaskGroups(repoRoot: string, taskId: string, own: boolean): Promise<SweptGroup[]> {
  const dir = processGroupsDir(repoRoot, taskId);
  if (own) return sweepRecordedGroups(dir);
  if (!hasRecords(dir) || taskRunIsLive(repoRoot, taskId)) return [];
  // Another task: only with its lock, so a run starting meanwhile keeps its groups.
  const release = await lockTask(repoRoot, taskId).catch(() => null);
  if (!release) return [];
  try {
    return await sweepRecordedGroups(dir);
  } finally {
    await release();
  }
}

function hasRecords(dir: string): boolean {
  try {
    return readdirSync(dir).some((e) => e.endsWith(".json"));
  } catch {
    return false;
  }
}

function removeDeadScratchDirs(): string[] {
  const dead = deadScratchDirs();
  for (const dir of dead) rmSync(dir, { recursive: true, force: true });
  return dead;
}
