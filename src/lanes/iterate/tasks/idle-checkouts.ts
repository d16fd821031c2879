import { lstatSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { DevflowError } from "../../../errors/index.js";
import { processIsRunning } from "../../../process/process-group.js";
import {
  type IdleEntry,
  idleClaimOwner,
  idleClaimPath,
  idleDir,
  idleNames,
  listIdleEntries,
} from "../../../workspace/index.js";
import { diskUsage } from "./disk-usage.js";

/**
 * Finished tasks' coder checkouts kept idle for the next task (ADR 0050, fourth slice), as
 * `devflow clean` lists and removes them. Nothing here follows a link: an `.idle/<id>` that is a
 * symlink is listed and removed as the link alone (what it points at is never read or deleted), and
 * `.idle` is only used at its own real path (idleDirInPlace).
 */

export interface IdleCheckout extends IdleEntry {
  /** On disk (links not followed; a link counts as the link). */
  bytes: number;
}

/**
 * The idle checkouts of `repoRoot`, oldest first (the one listing reuse uses too: idle-listing.ts);
 * only task `onlyId`'s when given. Sizes are measured for the entries returned only: each is a walk
 * of a whole checkout.
 */
export function listIdleCheckouts(repoRoot: string, onlyId?: string): IdleCheckout[] {
  const dir = idleDirInPlace(repoRoot);
  if (dir === null) return [];
  return listIdleEntries(dir)
    .filter((entry) => onlyId === undefined || entry.id === onlyId)
    .map((entry) => ({ ...entry, bytes: diskUsage(entry.path) }));
}

export type IdleRemoval = "removed" | "gone";

/**
 * Removes one idle checkout the way a task takes one: first claimed by an atomic rename to a private
 * name in `.idle/` (so a task claiming it at the same moment gets either the whole checkout or
 * nothing, never a half-deleted one), then deleted. "gone" when the rename finds nothing: a task (or
 * another clean) took it first, which is fine. The claimed entry is lstat'ed: a link is unlinked, a
 * directory removed; its `<id>.index` goes too.
 */
export function removeIdleCheckout(repoRoot: string, id: string): IdleRemoval {
  const dir = idleDirInPlace(repoRoot);
  if (dir === null) return "gone";
  const claimed = idleClaimPath(dir);
  try {
    renameSync(join(dir, id), claimed);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "gone";
    throw error;
  }
  // The index only once the checkout is ours: a task that claimed the checkout has read it already.
  rmSync(join(dir, `${id}.index`), { force: true });
  if (lstatSync(claimed).isDirectory()) rmSync(claimed, { recursive: true, force: true });
  else rmSync(claimed, { force: true });
  return "removed";
}

/**
 * The claims (`.idle/.clean-<pid>-<random>`, idle-claim.ts) a `devflow clean` killed between its
 * rename and the end of its removal left, or a task setup could not finish removing (a declined
 * checkout a leftover process still wrote into): the claiming process is gone, so nothing else
 * will ever delete them (no task id: neither listings nor reuse see them). A live claimer's
 * (another clean at work) and any other name are left alone. Through a linked `.idle` nothing is listed (no throw: every clean runs
 * this, and `--idle`/`--task` already refuse such a link). Each is lstat'ed, never followed.
 */
export function abandonedClaims(repoRoot: string): Array<{ path: string; bytes: number }> {
  const dir = idleDirInPlace(repoRoot, "nothing");
  if (dir === null) return [];
  return idleNames(dir)
    .filter((name) => {
      const pid = idleClaimOwner(name) ?? 0;
      return pid > 1 && pid !== process.pid && !processIsRunning(pid);
    })
    .map((name) => join(dir, name))
    .map((path) => ({ path, bytes: diskUsage(path) }));
}

/** Removes one abandoned claim: a directory recursively, anything else (a link) as itself. */
export function removeClaim(path: string): void {
  let isDir: boolean;
  try {
    isDir = lstatSync(path).isDirectory();
  } catch {
    return; // another clean swept it first
  }
  rmSync(path, isDir ? { recursive: true, force: true } : { force: true });
}

/**
 * The idle directory, null when absent; a link on the way is never followed (idle-dir.ts): refused
 * (CHECKOUT_UNUSABLE), or with "nothing" taken as no idle directory.
 */
function idleDirInPlace(repoRoot: string, onLink: "refuse" | "nothing" = "refuse"): string | null {
  const idle = idleDir(repoRoot);
  if (idle.state === "link" && onLink === "nothing") return null;
  if (idle.state === "link")
    throw new DevflowError(
      "CHECKOUT_UNUSABLE",
      `${idle.dir} leads to ${idle.leadsTo} (a link on the way): devflow clean removes nothing through it; remove the link and run it again`,
    );
  return idle.exists ? idle.dir : null;
}
