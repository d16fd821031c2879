import { chmodSync, existsSync, lstatSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { coderIndexRecord, verifyGitDir } from "../home/paths.js";
import { openTaskStore } from "../home/task-store.js";
import { regularFileBytes } from "../util/regular-file.js";
import { whyDirInUse } from "./dir-in-use.js";
import { entriesStatCannotSee } from "./entries-stat-cannot-see.js";
import { runGit } from "./git.js";
import { removeOrSetAside } from "./idle-claim.js";
import { idleDir } from "./idle-dir.js";
import { listIdleEntries } from "./idle-listing.js";
import { initOwnCloneRepo } from "./own-clone-repo.js";
import { STAT_CHECK_CONFIG } from "./verify-checkout.js";
import {
  backdateIndex,
  readIndexRecord,
  readOwnIndex,
  sha256Of,
  writeIndexRecord,
} from "./verify-index-record.js";

/**
 * Reusing a finished task's coder checkout for the next task (ADR 0050, fourth slice), so a task's
 * setup rewrites what differs between the two trees instead of checking out every file of the base.
 *
 * What makes it exact is the same rule as for the verification checkout (ADR 0032, 0039): the index
 * `read-tree -u --reset` starts from must be devflow's, never the coder's. It is the snapshot index
 * devflow's last snapshot of the old checkout wrote (stat data of the coder's files as they were
 * then), carried over only if it hashes to the record written into the old task's artifacts right
 * after that snapshot; the stat check is forced to compare ctime, which no process without root can
 * set back, so a file changed after that snapshot is rewritten. The old checkout's git dir is never
 * reused (a new one is made: no hook, config, ref or object the old coder planted survives), and
 * what git's stat check cannot see (hard links, modes beyond what a checkout gives, special files)
 * is removed before the reset, which then writes those files again.
 */

/** After a snapshot: the hash and time of the index it left (the record a later reuse checks). */
export function recordOwnIndex(indexFile: string, recordPath: string): void {
  writeIndexRecord(recordPath, readOwnIndex(indexFile));
}

export type Retirement = "kept_idle" | "removed" | "absent";

/**
 * The end of a finished task (the caller holds its lock and checked its verdict): its coder checkout
 * `checkout` is kept idle for the next task when devflow's snapshot index of it can be trusted (it
 * hashes to the task's record), else removed. Idle checkouts beyond `maxIdle` (older ones first) are
 * removed; `maxIdle` 0 removes this one too (the behaviour before reuse).
 */
export function retireCoderCheckout(
  repoRoot: string,
  taskId: string,
  checkout: string,
  maxIdle: number,
): Retirement {
  if (!existsSync(checkout) && !isLink(checkout)) return "absent";
  // A checkout swapped for a link (to the user's repository, say) is never kept: only the link goes.
  if (!isRealDirectory(checkout)) {
    rmSync(checkout, { force: true });
    return "removed";
  }
  const idle = idleDir(repoRoot);
  const idleDirPath = idle.dir;
  const index = regularFileBytes(join(verifyGitDir(repoRoot, taskId), "snapshot-index"));
  const record = readIndexRecord(coderIndexRecord(repoRoot, taskId));
  const trusted = index !== null && record !== null && sha256Of(index) === record.sha256;
  // Nor is one kept through a linked `.idle` (idle-dir.ts).
  const older = idle.state === "link" ? [] : listIdle(idle.dir).filter((id) => id !== taskId);
  for (const id of older.slice(0, Math.max(0, older.length - (maxIdle - 1)))) removeIdle(idleDirPath, id);
  // Whether a process the old coder left uses it (cwd, root, an open or mapped file) is asked once,
  // when a task claims it (reuseIdleCoderCheckout), not here too: that check comes later, on the
  // claimed checkout itself, so it also sees a process that entered while it was idle, and such a
  // checkout is removed there, never reset for the next task (issue 11: the /proc scan costs
  // 100-600 ms under load; doing it at both ends paid it twice for the same guarantee).
  if (!trusted || maxIdle < 1 || idle.state === "link") {
    // A leftover still writing into it must not fail the task's end (idle-claim.ts).
    if (idle.state === "link") rmSync(checkout, { recursive: true, force: true });
    else removeOrSetAside(checkout, idleDirPath);
    return "removed";
  }
  mkdirSync(idleDirPath, { recursive: true });
  // The index copy first: a crash between the two leaves an index without a checkout (ignored).
  writeFileSync(join(idleDirPath, `${taskId}.index`), index);
  renameSync(checkout, join(idleDirPath, taskId));
  return "kept_idle";
}

export interface ReusedCoderCheckout {
  /** The finished task whose checkout this task now works in. */
  from: string;
}

/** An idle checkout claimed and removed instead of reused, and why (the reuse decision). */
export interface DeclinedCoderCheckout {
  from: string;
  reason: string;
}

/**
 * Takes an idle coder checkout as `worktree` (which must not exist) and makes it a fresh repository
 * at `baseCommit` on `branch`, exactly as a new checkout would be: its own new git dir with the
 * user's objects as alternates, the base tree in the work tree and nothing else. The rename is the
 * claim (of two tasks only one gets a given checkout). Null when none is idle or the one claimed
 * cannot be trusted or reset (then it is removed, why is pushed to `declined` when given, and the
 * caller checks the base out afresh).
 */
export async function reuseIdleCoderCheckout(request: {
  repoRoot: string;
  worktree: string;
  branch: string;
  baseCommit: string;
  userObjects: string;
  declined?: DeclinedCoderCheckout[];
}): Promise<ReusedCoderCheckout | null> {
  const { repoRoot, worktree } = request;
  // Through a link on the way nothing is idle: what it leads to is not devflow's (idle-dir.ts).
  const idle = idleDir(repoRoot);
  if (idle.state === "link") return null;
  const idlePath = idle.dir;
  for (const from of listIdle(idlePath).reverse()) {
    try {
      renameSync(join(idlePath, from), worktree);
    } catch {
      continue; // another task took it
    }
    // What was claimed must be a real directory: `.idle/<id>` swapped for a link would have the
    // reset below delete and re-init the `.git` of whatever it points at (the user's repository).
    if (!isRealDirectory(worktree)) {
      rmSync(worktree, { force: true });
      rmSync(join(idlePath, `${from}.index`), { force: true });
      return null;
    }
    // Whatever `.git` the old coder left (a directory, a file, a link) goes; a new one is made.
    rmSync(join(worktree, ".git"), { recursive: true, force: true });
    const index = regularFileBytes(join(idlePath, `${from}.index`));
    rmSync(join(idlePath, `${from}.index`), { force: true });
    const record = readIndexRecord(coderIndexRecord(repoRoot, from));
    try {
      if (index === null || record === null || sha256Of(index) !== record.sha256)
        throw new Error("its index does not hash to the recorded one");
      // Checked on the claimed checkout, so a process that entered it while idle is seen too. A
      // process the scan cannot read counts if it started after the old task began (attack18): a
      // leftover of an earlier task in this checkout's line of reuse was alive at that task's own
      // claim, started after its predecessor began, and so stopped that reuse already.
      const inUse = whyDirInUse(worktree, await taskBeganAt(repoRoot, from));
      if (inUse !== null) throw new Error(`in use: ${inUse}`);
      await resetReused(request, index, record.mtime_ms);
      return { from };
    } catch (error) {
      removeOrSetAside(worktree, idlePath);
      request.declined?.push({ from, reason: error instanceof Error ? error.message : String(error) });
      return null;
    }
  }
  return null;
}

async function resetReused(
  request: { worktree: string; branch: string; baseCommit: string; userObjects: string },
  index: Buffer,
  mtimeMs: number,
): Promise<void> {
  const { worktree, branch, baseCommit, userObjects } = request;
  // The walk for what the stat check cannot see is a process of its own (find): it runs while the
  // new git dir is made (issue 11), and its answer is acted on before the reset. Not before the
  // /proc scan: find's own working directory is the checkout, and the scan rightly counts it.
  const blind = entriesStatCannotSee(worktree);
  // Awaited in `finally`, after init: a handler now keeps a rejection meanwhile from being "unhandled".
  blind.catch(() => undefined);
  try {
    await initOwnCloneRepo(worktree, userObjects, branch, baseCommit);
  } finally {
    // Its process is done before anything else happens to the checkout (removal on failure).
    removeWhatStatCannotSee(worktree, await blind);
  }
  const indexPath = join(worktree, ".git", "index");
  writeFileSync(indexPath, index);
  backdateIndex(indexPath, mtimeMs);
  await runGit(worktree, ["read-tree", "-u", "--reset", baseCommit], { config: STAT_CHECK_CONFIG });
  await runGit(worktree, ["clean", "-ffdxq"]);
  // Fail closed: the reset must have left exactly the base (nothing modified, untracked or ignored);
  // anything else was written by someone during the reset, and the caller checks the base out afresh.
  // (Not asked before the clean to spare it: status does not list empty directories, which only the
  // clean removes; attack6's mode-000 test caught that try.)
  const left = await runGit(worktree, ["status", "--porcelain", "--ignored", "--untracked-files=all"]);
  if (left.trim() !== "") throw new Error("the reset checkout is not exactly the base");
}

/**
 * Removes what git's stat check would keep although a fresh checkout would not have it
 * (entries-stat-cannot-see.ts): the reset then writes those files anew. Each removal is checked:
 * an entry still there (a name rmSync could not reach) gives the reuse up.
 */
function removeWhatStatCannotSee(dir: string, found: string[]): void {
  for (const rel of found) {
    const path = join(dir, rel);
    if (lstatSync(path).isDirectory()) chmodSync(path, 0o700);
    rmSync(path, { recursive: true, force: true });
    if (existsOrLink(path)) throw new Error(`could not remove ${rel}`);
  }
}

/**
 * When task `taskId` began: the first state its run record (written before its checkout was made,
 * ADR 0033) holds, in ms. 0 (every unreadable process of devflow's uid counts) when the record is
 * missing or unreadable: fail closed.
 */
async function taskBeganAt(repoRoot: string, taskId: string): Promise<number> {
  try {
    const run = await openTaskStore(repoRoot, taskId).read("iterator_run");
    const times = (run?.state_history ?? []).map((entry) => Date.parse(entry.at));
    const began = times.length > 0 ? Math.min(...times) : Number.NaN;
    return Number.isFinite(began) ? began : 0;
  } catch {
    return 0;
  }
}

/** Idle checkouts by task id, oldest first (by the time they were kept: idle-listing.ts). */
function listIdle(idleDirPath: string): string[] {
  return listIdleEntries(idleDirPath).map((entry) => entry.id);
}

function removeIdle(dir: string, id: string): void {
  rmSync(join(dir, `${id}.index`), { force: true });
  if (isRealDirectory(join(dir, id))) removeOrSetAside(join(dir, id), dir);
  else rmSync(join(dir, id), { force: true });
}

/** A directory itself, not a link to one (lstat: links are not followed). */
function isRealDirectory(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

function existsOrLink(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
