import { join } from "node:path";
import { DevflowError, messageOf } from "../errors/index.js";
import { acquireOwnedLock, describeOwner, type OwnedLock, warnLockLost } from "./owned-lock.js";
import { recordRoot } from "./paths.js";
import { assertTaskId } from "./task-id.js";

/**
 * The lock of one plan (`.devflow/idea/<id>/plan.lock`, ADR 0060): the process that runs a plan
 * holds it for the whole run, so two `devflow plan --resume <id>` never write the same
 * plan_run.json or land on the same integration branch at once. Each iterate task's own lock only
 * guarded one task at a time: a second resume could start the next task on a stale record. A second
 * process is refused at once with the holder's pid and what to do; a lock whose holder died
 * (SIGKILL, crash) is taken over, so `--resume` right after a crash works.
 */
export function lockPlan(repoRoot: string, planId: string): Promise<OwnedLock> {
  const id = assertTaskId(planId);
  return acquireOwnedLock({
    dir: join(recordRoot(repoRoot, "idea"), id),
    name: "plan",
    onCompromised: warnLockLost(`plan ${id}`),
    refused: (owner, lockPath) =>
      new DevflowError(
        "PLAN_LOCKED",
        `plan ${id} is already running in another devflow process (${describeOwner(owner)}, lock ${lockPath}); wait for it to finish, then devflow plan --resume ${id}`,
      ),
    failed: (lockPath, cause) =>
      new DevflowError("PLAN_LOCKED", `could not lock plan ${id} (${lockPath}): ${messageOf(cause)}`, {
        cause,
      }),
  });
}
