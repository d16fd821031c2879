import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { isTaskId, listTasks, recordRoot, worktreesDir } from "../../../home/index.js";
import { listTaskBranches, taskBranch, taskWorktreePath } from "../../../workspace/index.js";
import { diskUsage } from "./disk-usage.js";

/**
 * What a task left after its task folder `.devflow/iterate/<id>` was gone: its `devflow/<id>`
 * branch (a task cleaned without `--branches`, or removed by hand) and its coder checkout
 * `.devflow/worktrees/<id>` (e.g. a linked worktree an older devflow made, ADR 0025). Nothing
 * lists them by task any more, so `devflow runs` lists them here and `clean --orphans` removes them.
 */
export interface OrphanEntry {
  id: string;
  branch: string;
  /** Where `devflow/<id>` stands; null when only the checkout is left. */
  branchCommit: string | null;
  /** The coder checkout's path; null when only the branch is left. */
  checkout: string | null;
  bytes: number;
}

/** Every orphan of the repository, by id. Read-only. */
export async function listOrphans(repoRoot: string): Promise<OrphanEntry[]> {
  const tasks = new Set(listTasks(repoRoot));
  const branches = await listTaskBranches(repoRoot);
  const checkouts = new Set(safeReaddir(worktreesDir(repoRoot)).filter((name) => isTaskId(name)));
  const ids = new Set([...branches.keys(), ...checkouts]);
  return [...ids]
    .filter((id) => !tasks.has(id) && !isPlanBranchOfAKnownPlan(repoRoot, id))
    .sort()
    .map((id) => {
      const checkout = checkouts.has(id) ? taskWorktreePath(repoRoot, id) : null;
      return {
        id,
        branch: taskBranch(id),
        branchCommit: branches.get(id) ?? null,
        checkout,
        bytes: checkout === null ? 0 : diskUsage(checkout),
      };
    });
}

/**
 * `devflow/plan-<plan id>` is a compose plan's integration branch (ADR 0055): it belongs to the
 * plan's folder `.devflow/idea/<plan id>/`, not to an iterate task, so it is no orphan while that
 * folder exists (`clean --orphans` deleted a user's verified plan branch before this check).
 */
function isPlanBranchOfAKnownPlan(repoRoot: string, id: string): boolean {
  return id.startsWith("plan-") && existsSync(join(recordRoot(repoRoot, "idea"), id.slice("plan-".length)));
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
