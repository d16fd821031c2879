import { existsSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { DevflowError } from "../errors/index.js";
import { verifyCheckoutDir, verifyGitDir, verifyIndexRecord } from "../home/paths.js";
import { regularFileBytes } from "../util/regular-file.js";
import { isObjectId } from "./object-id.js";
import { initVerifyRepo, trustIndex, userObjectDir } from "./verify-checkout.js";
import { readIndexRecord, sha256Of } from "./verify-index-record.js";

export interface AdoptRequest {
  repoRoot: string;
  /** The finished task whose idle checkout is taken; the caller holds its task lock. */
  fromTaskId: string;
  /** The new task, which has no verification checkout yet. */
  taskId: string;
  baseCommit: string;
}

export interface AdoptedCheckout {
  from: string;
  /**
   * The idle checkout's index still hashed to the one devflow's last reset of it wrote: the first
   * reset rewrites only what differs. False: it is dropped and the first reset rewrites every file.
   */
  indexTrusted: boolean;
}

/**
 * Makes the idle verification checkout of a finished task the new task's (ADR 0039): its work tree
 * is renamed (O(1), and atomic: of two tasks only one rename succeeds), its git dir is not reused
 * (config, attributes, refs and objects a test run of the old task may have written there go) but
 * made anew, and only its index is carried over, and only if it hashes to the record devflow kept
 * in the old task's artifacts. The first reset (ADR 0032) then makes the work tree exactly the new
 * tree. Returns null when there is nothing to adopt any more.
 */
export async function adoptVerifyCheckout(request: AdoptRequest): Promise<AdoptedCheckout | null> {
  const { repoRoot, fromTaskId, taskId, baseCommit } = request;
  if (!isObjectId(baseCommit))
    throw new DevflowError(
      "BAD_REVISION",
      `invalid base commit ${JSON.stringify(baseCommit)}: pass a commit sha`,
    );
  const fromDir = verifyCheckoutDir(repoRoot, fromTaskId);
  const fromGit = verifyGitDir(repoRoot, fromTaskId);
  const dir = verifyCheckoutDir(repoRoot, taskId);
  const gitDir = verifyGitDir(repoRoot, taskId);
  if (existsSync(dir) || existsSync(gitDir)) return null;
  const userObjects = await userObjectDir(repoRoot);
  try {
    renameSync(fromDir, dir);
  } catch {
    return null;
  }
  const index = regularFileBytes(join(fromGit, "index"));
  const recordPath = verifyIndexRecord(repoRoot, fromTaskId);
  const record = readIndexRecord(recordPath);
  // The old task has no checkout any more: a --resume of it makes a new one (full checkout).
  rmSync(fromGit, { recursive: true, force: true });
  rmSync(recordPath, { force: true });
  rmSync(join(dir, ".git"), { recursive: true, force: true });
  await initVerifyRepo(dir, gitDir, userObjects, baseCommit);
  if (index === null || record === null || sha256Of(index) !== record.sha256)
    return { from: fromTaskId, indexTrusted: false };
  trustIndex(gitDir, { bytes: index, mtimeMs: record.mtime_ms });
  return { from: fromTaskId, indexTrusted: true };
}
