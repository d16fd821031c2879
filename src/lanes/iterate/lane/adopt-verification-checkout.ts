import { rmSync } from "node:fs";
import {
  listVerifyCheckouts,
  lockTask,
  openTaskStore,
  taskRunIsLive,
  verifyCheckoutDir,
  verifyGitDir,
  verifyIndexRecord,
} from "../../../home/index.js";
import { type AdoptedCheckout, adoptVerifyCheckout } from "../../../workspace/index.js";
import { wholeNumberFromEnv } from "./env-number.js";

/** How many idle verification checkouts a repository keeps beyond the one a new task adopts. */
export const MAX_IDLE_VERIFY_CHECKOUTS_ENV = "DEVFLOW_MAX_IDLE_VERIFY_CHECKOUTS";
export const DEFAULT_MAX_IDLE_VERIFY_CHECKOUTS = 1;

export interface AdoptionReport {
  /** The checkout the new task took over, or null (none idle: the first reset checks out the base). */
  adopted: AdoptedCheckout | null;
  /** Idle checkouts removed because more than the limit were left (task ids). */
  removed: string[];
  /** The limit that applied. */
  maxIdle: number;
}

/**
 * At the start of a new task (ADR 0039): adopts the verification checkout of a finished task
 * (terminal verdict in its run record, its task lock free) instead of checking out the whole base
 * tree again, then removes idle checkouts beyond the limit (`DEVFLOW_MAX_IDLE_VERIFY_CHECKOUTS`,
 * default 1). Each candidate is taken under its task's lock, and rechecked there: a live run's
 * checkout is never touched, and of two tasks starting at once only one gets a given checkout.
 */
export async function adoptIdleVerificationCheckout(
  repoRoot: string,
  taskId: string,
  baseCommit: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<AdoptionReport> {
  const maxIdle = maxIdleFromEnv(env);
  const report: AdoptionReport = { adopted: null, removed: [], maxIdle };
  let idleKept = 0;
  for (const candidate of listVerifyCheckouts(repoRoot)) {
    if (candidate === taskId || taskRunIsLive(repoRoot, candidate)) continue;
    const adopt = report.adopted === null;
    if (!adopt && idleKept < maxIdle) {
      if (await isFinished(repoRoot, candidate)) idleKept++;
      continue;
    }
    await underLockIfFinished(repoRoot, candidate, async () => {
      if (adopt) {
        report.adopted = await adoptVerifyCheckout({ repoRoot, fromTaskId: candidate, taskId, baseCommit });
        return;
      }
      rmSync(verifyCheckoutDir(repoRoot, candidate), { recursive: true, force: true });
      rmSync(verifyGitDir(repoRoot, candidate), { recursive: true, force: true });
      rmSync(verifyIndexRecord(repoRoot, candidate), { force: true });
      report.removed.push(candidate);
    });
  }
  return report;
}

/** A task that will never verify again: its run record holds a verdict. */
async function isFinished(repoRoot: string, taskId: string): Promise<boolean> {
  try {
    return Boolean((await openTaskStore(repoRoot, taskId).read("iterator_run"))?.terminal);
  } catch {
    return false;
  }
}

/** Runs `fn` holding the task's lock, if the lock is free and the task is finished; else skips. */
async function underLockIfFinished(repoRoot: string, taskId: string, fn: () => Promise<void>): Promise<void> {
  if (!(await isFinished(repoRoot, taskId))) return;
  let release: () => Promise<void>;
  try {
    release = await lockTask(repoRoot, taskId, { onCompromised: () => {} });
  } catch {
    return; // a run holds it (or it is being adopted right now)
  }
  try {
    // Rechecked under the lock: a --resume may have started and finished in between.
    if (await isFinished(repoRoot, taskId)) await fn();
  } finally {
    await release();
  }
}

export function maxIdleFromEnv(env: NodeJS.ProcessEnv): number {
  return wholeNumberFromEnv(env, MAX_IDLE_VERIFY_CHECKOUTS_ENV, DEFAULT_MAX_IDLE_VERIFY_CHECKOUTS);
}
