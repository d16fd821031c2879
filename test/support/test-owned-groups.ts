import { setTimeout as sleep } from "node:timers/promises";
import { onTestFinished } from "vitest";
import { forgetReaped, reapOnExit } from "./group-reaper.js";
import { liveGroupMembers, processesMarkedBy } from "./leftover-processes.js";

/**
 * Makes a detached process group a test started die with the test (a `devflow daemon` a test
 * forgot to stop, or could not stop because it threw or timed out, outlived vitest before).
 * Two layers:
 * - When the current test finishes, passed, failed or timed out (vitest runs `onTestFinished`
 *   then too), the group is SIGKILLed, with every process carrying the run marker of the group
 *   leader (`DEVFLOW_RUN_MARKER=devflow-<pid>-…`: the coders devflow confines in groups of their
 *   own, ADR 0020), and the hook waits until none of them is alive.
 * - Outside a test (a `beforeAll`), or if the test process itself dies first, the group reaper
 *   (group-reaper.ts) kills the group when the test process ends.
 */
export function ownGroupForTest(pgid: number): void {
  reapOnExit(pgid);
  try {
    onTestFinished(() => endGroup(pgid), 15_000);
  } catch {
    // Not inside a test: the reaper ends it with the test process.
  }
}

/** SIGKILLs group `pgid` and what its leader confined, until none of it is alive (or `ms` pass). */
export async function endGroup(pgid: number, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const alive = [...liveGroupMembers(pgid), ...processesMarkedBy(pgid)];
    if (alive.length === 0) break;
    try {
      process.kill(-pgid, "SIGKILL");
    } catch {
      // only zombies, or gone
    }
    for (const pid of alive) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {}
    }
    if (Date.now() > deadline) throw new Error(`process group ${pgid} still alive: ${alive.join(", ")}`);
    await sleep(25);
  }
  forgetReaped(pgid);
}
