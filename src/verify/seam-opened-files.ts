import { existsSync, realpathSync } from "node:fs";
import { join, posix, sep } from "node:path";
import type { OpenTrace } from "../process/open-trace.js";
import type { RunnerInvocation } from "./report-run.js";
import { inMocksFolder, list } from "./seam-shared-process.js";
import { isTestPath } from "./test-paths.js";

/**
 * Runners whose seam runs are traced (ADR 0072). Not jest: its haste map reads every module of the
 * project to index it (with a warm cache, every file changed since: exactly the attempt's), so
 * "opened" is not "loaded" there (a correct fix that also edits another test would be refused);
 * it gives each test file its own module registry, and the shape checks of ADR 0019 stay for it.
 * vitest is traced (stop 34): measured on vitest 4.1, a run of one test file opens that file, what
 * it imports, configs and package.json files, and no other test file or data (its file listing
 * reads directories, not files). undefined: an exit-code seam (the runner is unknown), traced.
 */
export function tracesSeamRuns(runner: RunnerInvocation["runner"] | undefined): boolean {
  return runner !== "jest";
}

/**
 * Why a seam run cannot vouch for the fix because it opened test code or test data that the
 * attempt changed besides the seam's own files; null when it did not (or when no trace was taken:
 * the shape checks of ADR 0019 are what is left then, and the payload says so).
 *
 * Stop 33 (ADR 0072): the shape checks named the loaders devflow had thought of; a loader of
 * another shape (a path built at run time, `globalThis[...]`, a fixture read through a variable)
 * ran a changed test file, or read a changed expected-output file, into the seam's process unseen.
 * The trace records what the run's processes really opened, however it was named. A broken trace
 * (cut short, over its cap, a line the run wrote into it) fails closed.
 */
export function openedExposure(input: {
  checkoutDir: string;
  trace: OpenTrace | undefined;
  /** The seam's files, pinned helpers and mocks included (their own change is seam integrity's finding). */
  seamFiles: readonly string[];
  /** devflow's canary files of this run (never the attempt's). */
  canaryFiles: readonly string[];
  /** Every file the attempt changed since base. */
  changedFiles: readonly string[];
}): string | null {
  const { trace } = input;
  if (trace === undefined || trace.kind === "unavailable") return null;
  if (trace.kind === "broken")
    return `the seam's run could not be traced to its end (${trace.reason}), so what it loaded is not known`;
  const opened = openedInside(input.checkoutDir, trace.files);
  const own = new Set([...input.seamFiles, ...input.canaryFiles].map(posix.normalize));
  const changed = input.changedFiles
    .map(posix.normalize)
    .filter(
      (f) => !own.has(f) && (isTestPath(f) || inMocksFolder(f)) && reached(input.checkoutDir, f, opened),
    )
    // Deleted: nothing of it was read (an open of its path failed and is not in the trace), unless
    // the run wrote it anew. A name that is not UTF-8 reads as U+FFFD here and cannot be looked up
    // by it (review, stop 33: such a case file was taken as deleted): it counts as there.
    .filter((f) => f.includes("\uFFFD") || existsSync(join(input.checkoutDir, f)))
    .sort();
  if (changed.length === 0) return null;
  return (
    `the seam's run opened test code or data the attempt changed besides the seam's files (${list(changed, 5)}): ` +
    "what it read there ran or was compared in the seam's tests and can make them pass without the fix; " +
    "leave those files as they were on base, or make the seam command run the seam's own files only"
  );
}

/** The traced files inside `checkoutDir`, relative with "/" separators. */
export function openedInside(checkoutDir: string, files: readonly string[]): Set<string> {
  return new Set(files.flatMap(insideCheckout(checkoutDir)));
}

/**
 * A mapper from an absolute path to its checkout-relative path(s), resolving the checkout once.
 * The trace has real paths (the kernel's): a checkout under a symlinked /tmp is matched by its own.
 */
export function insideCheckout(checkoutDir: string): (abs: string) => string[] {
  const dirs = [...new Set([checkoutDir, realOrSame(checkoutDir)])];
  return (abs) => dirs.flatMap((dir) => relativeInside(dir, [abs]));
}

/** What the payload says about the trace: traced, broken (with why), unavailable (with why), or not asked for. */
export function traceStatus(
  trace: OpenTrace | undefined,
  asked: boolean,
): { status: "traced" | "broken" | "unavailable" | "not_traced"; reason: string | null } {
  if (!asked || trace === undefined)
    return {
      status: "not_traced",
      reason: "jest seams are not traced: its haste map reads files it never loads (ADR 0072)",
    };
  return trace.kind === "traced"
    ? { status: "traced", reason: null }
    : { status: trace.kind, reason: trace.reason };
}

/**
 * Whether the run opened changed file `f`: by its own path, or, when `f` is (or sits under) a
 * symlink, by the path it resolves to in the checkout, a file or anything beneath a folder. The
 * trace holds the kernel's path of each opened file (`-y`), never the link the run named (review,
 * stop 34: a case file replaced by a link to a new `src/spaces-data.json` expecting the bug was
 * opened as that program file, and a mocha and a vitest seam completed with the bug kept).
 */
export function reached(checkoutDir: string, f: string, opened: ReadonlySet<string>): boolean {
  if (opened.has(f)) return true;
  const real = realInside(checkoutDir, f);
  if (real === null || real === f) return false;
  if (opened.has(real)) return true;
  const below = `${real}/`;
  for (const path of opened) if (path.startsWith(below)) return true;
  return false;
}

/** `rel`'s real path inside `checkoutDir` (relative, "/"-separated); null when it is not there or leads out. */
export function realInside(checkoutDir: string, rel: string): string | null {
  try {
    const real = realpathSync(join(checkoutDir, rel));
    return relativeInside(realOrSame(checkoutDir), [real])[0] ?? null;
  } catch {
    return null;
  }
}

/** `dir`'s real path, or `dir` itself when it cannot be resolved. */
export function realOrSame(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}

/** The files of `paths` (absolute) inside `dir`, relative with "/" separators. */
function relativeInside(dir: string, paths: readonly string[]): string[] {
  const prefix = dir.endsWith(sep) ? dir : `${dir}${sep}`;
  return paths.filter((p) => p.startsWith(prefix)).map((p) => p.slice(prefix.length).split(sep).join("/"));
}
