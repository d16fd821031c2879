import { lstatSync } from "node:fs";
import { sep } from "node:path";
import { tempRoots, within } from "../process/mount-seal.js";
import type { OpenTrace } from "../process/open-trace.js";
import { realOrSame } from "./seam-opened-files.js";
import { list } from "./seam-shared-process.js";

/**
 * Filesystems of the run's own namespace (a private /proc, a fresh /run) or the kernel's: nothing a
 * coder left. Not /dev: `/dev/shm` is the host's shared tmpfs (fourth review, stop 37).
 */
const NAMESPACE_OWN = ["/proc", "/sys", "/run", "/var/run"];
/** How far the file system's coarse clock may lag the run's start as read by devflow. */
const CLOCK_SLACK_MS = 10;

/**
 * Why a seam run cannot vouch for the fix because it opened a file outside its checkout that was
 * created or changed after the coder could first run (`sinceMs`, taken when the contract was
 * pinned) and is not the run's own (born during the run); null when it did not, when no trace was
 * taken, or when the task has no such time (a task pinned before this check existed).
 *
 * Review of stop 37 (ADR 0074): vitest, mocha and pytest look for their configuration in every
 * folder above the checkout when the repository has none of its own, and the verification
 * checkout sits inside the user's repository. A coder wrote `vitest.config.mjs`, `.mocharc.json` or
 * `pytest.ini` with a preload into the folder above the repository (writable to it wherever that
 * folder is outside HOME); the seam ran with them and the lane completed, nothing in the snapshot
 * having changed. Whatever the runner and however it found the file, the trace shows the run opened
 * it, and its change time (which a process cannot set back) shows it is newer than the task's
 * pinned contract. A file that is gone by the time devflow looks, and was not opened to write by
 * the run, counts too: the run's code could delete what it loaded. Every name counts (fourth review: a
 * config linked to `rc.data`, a plugin zipped into `bundle.data` on pytest's `pythonpath`, a mocha
 * `require` of an unknown extension); only the run's own files are left out.
 */
export function outsideExposure(input: {
  checkoutDir: string;
  trace: OpenTrace | undefined;
  sinceMs: number | undefined;
  /** When the run started (ms since the epoch): a file born after it is the run's own. */
  runStartMs: number;
  /** The run's own temp dir (fresh for it, removed after it): everything in it is the run's. */
  runTempDir?: string;
  /**
   * The run's log path: what starts with it is devflow's own for this run, in its hidden home where
   * no coder reaches (the report and ledger dir `<log>.out/` with the ledger key devflow writes
   * before the run and removes after it, the overlay's upper layer).
   */
  logPath?: string;
  /**
   * The temp roots a traced run had private copies of (ADR 0075; default `tempRoots()`): a file
   * there that the host does not have was the run's own, made in its private layer.
   */
  privateTemps?: readonly string[];
}): string | null {
  const { trace, sinceMs } = input;
  if (trace?.kind !== "traced" || sinceMs === undefined) return null;
  // The checkout's and the run's own temp dir's contents (the run's), by path and by real path.
  const ownDirs = [input.checkoutDir, ...(input.runTempDir ? [input.runTempDir] : [])].flatMap((d) => {
    const dir = d.length > 1 && d.endsWith(sep) ? d.slice(0, -1) : d;
    return [dir, realOrSame(dir)];
  });
  const written = new Set(trace.written);
  const privateTemps = input.privateTemps ?? tempRoots().map((root) => root.path);
  const found: string[] = [];
  for (const path of trace.files) {
    if (
      ownDirs.some((dir) => path !== dir && within(path, dir)) ||
      NAMESPACE_OWN.some((dir) => within(path, dir)) ||
      (input.logPath !== undefined && path.startsWith(input.logPath))
    )
      continue;
    let stat: ReturnType<typeof lstatSync>;
    try {
      stat = lstatSync(path);
    } catch {
      // Gone from the host: deleted after the run loaded it, unless it never was the host's (a file
      // the run made in its private /tmp, by a rename the trace does not count as writing).
      if (!written.has(path) && !privateTemps.some((dir) => within(path, dir))) found.push(`${path} (gone)`);
      continue;
    }
    if (!stat?.isFile()) continue;
    // The run's own file: born during the run (birth time, which no write or open changes), or,
    // where the file system keeps no birth time, one the run opened to write (fourth review: a
    // planted preload that opened itself with 'r+' passed as the run's own under the second rule).
    const own =
      stat.birthtimeMs > 0 ? stat.birthtimeMs >= input.runStartMs - CLOCK_SLACK_MS : written.has(path);
    if (!own && stat.ctimeMs >= sinceMs) found.push(path);
  }
  if (found.length === 0) return null;
  return (
    `the seam's run loaded code or configuration from outside its checkout that was created or changed while the task ran (${list(found.sort(), 5)}): ` +
    "a runner looks for its configuration above the repository, and anything there can make the seam pass without the fix; " +
    "remove those files, or give the repository its own configuration"
  );
}
