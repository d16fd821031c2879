import { existsSync } from "node:fs";
import { join } from "node:path";
import { DevflowError, messageOf } from "../errors/index.js";
import {
  acquireOwnedLock,
  describeOwner,
  type LockOwner,
  type OwnedLock,
  ownerIsLive,
  readLockOwner,
  warnLockLost,
} from "./owned-lock.js";

/**
 * One `devflow daemon` per data root (issue 12): `<root>/daemon.lock` (the lock mechanism of
 * owned-lock.ts: refreshed while held, `{pid, host}` in `daemon.owner`, taken over at once when its
 * owner died). A second daemon gets DAEMON_RUNNING naming the first.
 */
export function acquireDaemonLock(root: string): Promise<OwnedLock> {
  return acquireOwnedLock({
    dir: root,
    name: "daemon",
    onCompromised: warnLockLost(`the data root ${root}`),
    refused: (owner, lockPath, cause) =>
      new DevflowError(
        "DAEMON_RUNNING",
        `another devflow daemon (${describeOwner(owner)}) already works on ${root} (lock ${lockPath}); nothing to do`,
        { cause },
      ),
    failed: (lockPath, cause) =>
      new DevflowError("DATA_ROOT_UNUSABLE", `could not lock ${lockPath}: ${messageOf(cause)}`, { cause }),
  });
}

/**
 * Who holds `<root>/daemon.lock` (for `devflow doctor`): null when nobody does; `live` false when
 * the lock is left by a process that is gone (the next daemon takes it over at once).
 */
export function daemonLockHolder(root: string): { owner: LockOwner | null; live: boolean } | null {
  const ownerPath = join(root, "daemon.owner");
  const owner = readLockOwner(ownerPath);
  if (owner === null && !existsSync(join(root, "daemon.lock"))) return null;
  return { owner, live: ownerIsLive(ownerPath) };
}
