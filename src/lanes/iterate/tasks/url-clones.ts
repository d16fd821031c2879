import { readdirSync, realpathSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { isTaskId, listTasks, openTaskStore, processGroupsDir } from "../../../home/index.js";
import { sweepRecordedGroups } from "../../../process/group-ledger.js";
import { FAILED_STATES } from "./clean.js";
import { diskUsage } from "./disk-usage.js";
import { readTaskEntry, type TaskState } from "./inventory.js";

/**
 * A URL task's clone (`<base-dir>/<id>`, ADR 0036): a folder named after a task id, holding that
 * one task, whose run record names the folder itself as the repository. `devflow clean --clones
 * <base-dir>` finds them there, since nothing outside the clone records it.
 */
export interface UrlClone {
  id: string;
  dir: string;
  state: TaskState;
  updatedAt: string | null;
  bytes: number;
}

export async function listUrlClones(baseDir: string): Promise<UrlClone[]> {
  const base = resolve(baseDir);
  const clones: UrlClone[] = [];
  for (const name of safeReaddir(base).sort()) {
    if (!isTaskId(name)) continue;
    const dir = join(base, name);
    if (!listTasks(dir).includes(name)) continue;
    const run = await openTaskStore(dir, name)
      .read("iterator_run")
      .catch(() => null);
    if (run === null || !sameDir(run.workspace.repo, dir)) continue;
    const entry = await readTaskEntry(dir, name, new Map());
    if (entry === null) continue;
    clones.push({ id: name, dir, state: entry.state, updatedAt: entry.updatedAt, bytes: diskUsage(dir) });
  }
  return clones;
}

export interface CloneSelection {
  taskId?: string;
  olderThanMs?: number;
  failed?: boolean;
  dryRun: boolean;
  now?: number;
}

export interface CloneCleanReport {
  removed: UrlClone[];
  kept: Array<UrlClone & { why: string }>;
}

/**
 * Removes the selected clones whole: a running one never, a completed one only when named
 * (`--task`): its result branch lives only there until the user fetches it.
 */
export async function cleanUrlClones(baseDir: string, sel: CloneSelection): Promise<CloneCleanReport> {
  const report: CloneCleanReport = { removed: [], kept: [] };
  const now = sel.now ?? Date.now();
  for (const clone of await listUrlClones(baseDir)) {
    if (sel.taskId !== undefined && clone.id !== sel.taskId) continue;
    if (sel.failed && !FAILED_STATES.includes(clone.state) && clone.state !== "running") continue;
    if (sel.olderThanMs !== undefined) {
      const at = Date.parse(clone.updatedAt ?? "");
      if (!Number.isFinite(at) || now - at < sel.olderThanMs) continue;
    }
    if (clone.state === "running") {
      report.kept.push({ ...clone, why: "a devflow run is working on it" });
      continue;
    }
    if (clone.state === "completed" && sel.taskId !== clone.id) {
      report.kept.push({
        ...clone,
        why: `its result (devflow/${clone.id}) is only in the clone: fetch it, then name it (--task ${clone.id})`,
      });
      continue;
    }
    if (!sel.dryRun) {
      await sweepRecordedGroups(processGroupsDir(clone.dir, clone.id));
      rmSync(clone.dir, { recursive: true, force: true });
    }
    report.removed.push(clone);
  }
  return report;
}

function sameDir(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
