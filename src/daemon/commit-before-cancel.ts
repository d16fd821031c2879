import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { cacheDir, taskDir } from "../home/index.js";
import { isAncestor, isGitUrl, isObjectId, taskBranch, taskBranchHead } from "../workspace/index.js";
import type { Claim } from "./ticket-queue.js";
import type { TicketRequest } from "./ticket-request.js";

/** The task branch and the commit it holds, as a cancelled ticket's record names them. */
export interface CommitBeforeCancel {
  branch: string;
  commit: string;
}

/**
 * The commit a cancelled ticket's task had already put on `devflow/<id>` (review of ADR 0056:
 * cancel-noticed-after-the-commit-records-no-commit): the lane moves the branch, the daemon dies
 * before it records the end, the user cancels, and the next daemon cancels the recovered ticket
 * before it runs. The record must name that commit instead of `commit: null`. Read from the task's
 * repository (a URL ticket's clone under the data root): the branch counts when it moved past the
 * base commit the task's run record pinned and descends from it; null when the task never started,
 * its record is unreadable, or the branch still stands at base.
 */
export async function commitBeforeCancel(
  root: string,
  claim: Claim,
  ticket: TicketRequest | null,
): Promise<CommitBeforeCancel | null> {
  const repo = ticket?.frontmatter.repo;
  const home =
    repo !== undefined && isGitUrl(repo) ? join(cacheDir(root), "clones", claim.id) : claim.record.repo_key;
  if (!home) return null;
  const base = await runBase(join(taskDir(home, claim.id), "iterator_run.json"));
  if (!base) return null;
  const head = await taskBranchHead(home, claim.id).catch(() => null);
  if (!head || head === base || !(await isAncestor(home, base, head).catch(() => false))) return null;
  return { branch: taskBranch(claim.id), commit: head };
}

/** `workspace.base_commit` of a task's iterator_run.json, or null. */
async function runBase(path: string): Promise<string | null> {
  try {
    const run = JSON.parse(await readFile(path, "utf8")) as { workspace?: { base_commit?: unknown } };
    const base = run.workspace?.base_commit;
    return typeof base === "string" && isObjectId(base) ? base : null;
  } catch {
    return null;
  }
}
