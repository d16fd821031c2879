import { DevflowError, messageOf } from "../errors/index.js";
import { acquireOwnedLock, describeOwner, type OwnedLock, warnLockLost } from "./owned-lock.js";
import { threadLocksDir } from "./paths.js";
import { assertTaskId } from "./task-id.js";

/**
 * The lock of one chat thread: the process that holds it is the only one that reads and writes the
 * thread's checkpoints, so two `devflow chat --thread <id>` never interleave their turns (issue 10,
 * ADR 0035). A second process is refused at once with the holder's pid and host and what to do; a
 * lock whose holder died (SIGKILL, crash) is taken over. The session releases it synchronously on
 * close(); on a signal that kills the process proper-lockfile's exit hook removes it.
 */
export function lockThread(repoRoot: string, threadId: string): Promise<OwnedLock> {
  const id = assertTaskId(threadId);
  return acquireOwnedLock({
    dir: threadLocksDir(repoRoot),
    name: id,
    onCompromised: warnLockLost(`chat thread ${id}`),
    refused: (owner, lockPath) =>
      new DevflowError(
        "THREAD_LOCKED",
        `chat thread ${id} is open in another devflow chat (${describeOwner(owner)}, lock ${lockPath}); leave that chat (/quit) first, or start a new thread (devflow chat without --thread)`,
      ),
    failed: (lockPath, cause) =>
      new DevflowError(
        "THREAD_LOCKED",
        `could not lock chat thread ${id} (${lockPath}): ${messageOf(cause)}`,
        {
          cause,
        },
      ),
  });
}
