import { realpathSync } from "node:fs";
import { resolve, sep } from "node:path";

/**
 * Which verification runs could have written the directory they ran in (issue 9/11: the reset
 * between the seam runs and regression). A run is counted when it starts and proven untouched
 * only when its checkout overlay (ADR 0040) was seen mounted and read back after it, with nothing
 * of it left running: its writes then went to the upper layer devflow threw away, never to the
 * checkout itself. Every other outcome (no namespace, stat fallback, overlay not mounted or not
 * readable, survivors, a run that threw) leaves the run unproven, and a caller that asks gets
 * "reset it" (fail closed). Per process; keyed by the run's working directory.
 * Runs that settled (returned or threw) are counted too: a run in flight across a mark, proven
 * after it, would otherwise offset an unproven run after the mark (the two counters alone cannot
 * tell them apart; review18 overlapping-run-offsets-an-unproven-one). A mark taken, or a check
 * made, while a run of the checkout is in flight never says "untouched".
 */
interface Entry {
  started: number;
  untouched: number;
  settled: number;
}
const runs = new Map<string, Entry>();

/** A point in the ledger of `dir` (every run whose working directory is `dir` or inside it). */
export interface CheckoutRunMark {
  dir: string;
  started: number;
  untouched: number;
  settled: number;
}

/** Counted before anything of the run happens: an exception after this leaves it unproven. */
export function recordRunStarted(cwd: string): void {
  const entry = entryOf(cwd);
  entry.started += 1;
}

/** When the run is over, whatever its outcome (after recordRunLeftCheckoutUntouched, if any). */
export function recordRunSettled(cwd: string): void {
  const entry = entryOf(cwd);
  entry.settled += 1;
}

/** Only for a run whose checkout overlay was mounted and read back, with no survivors. */
export function recordRunLeftCheckoutUntouched(cwd: string): void {
  const entry = entryOf(cwd);
  entry.untouched += 1;
}

export function checkoutRunMark(dir: string): CheckoutRunMark {
  const root = keyOf(dir);
  let started = 0;
  let untouched = 0;
  let settled = 0;
  for (const [cwd, entry] of runs)
    if (cwd === root || cwd.startsWith(`${root}${sep}`)) {
      started += entry.started;
      untouched += entry.untouched;
      settled += entry.settled;
    }
  return { dir: root, started, untouched, settled };
}

/**
 * True when every run started in `mark.dir` (or below it) since `mark` is proven to have left it
 * untouched: what a reset to the same tree would restore is already there.
 */
export function checkoutUntouchedSince(mark: CheckoutRunMark): boolean {
  const now = checkoutRunMark(mark.dir);
  // Nothing in flight at the mark or now: every run counted since started and ended in between.
  if (mark.started !== mark.settled || now.started !== now.settled) return false;
  return now.started - mark.started === now.untouched - mark.untouched;
}

/**
 * One key per directory however it is spelled: a run started through a link to the checkout (or
 * with `..` in its path) must count against the checkout's mark, or it would go unseen and the
 * reset be skipped. A path that cannot be resolved (gone) keeps its lexical form.
 */
function keyOf(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return resolve(path);
  }
}

function entryOf(cwd: string): Entry {
  const key = keyOf(cwd);
  let entry = runs.get(key);
  if (!entry) {
    entry = { started: 0, untouched: 0, settled: 0 };
    runs.set(key, entry);
  }
  return entry;
}
