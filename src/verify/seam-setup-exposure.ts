import { posix } from "node:path";
import { runnerSetupFiles } from "./seam-data-files.js";

/**
 * Why a seam run cannot vouch for the fix because the runner configuration, as the attempt left it,
 * runs a file the attempt changed before every test; null when it does not.
 *
 * Observe pins the setup files the base's configuration names (ADR 0019 amendment 3), so an edit to
 * them fails seam integrity. A configuration the task's scope names exactly may change, though
 * (regression allows it), and the review of stop 35 had such a change point at a new file outside
 * the test tree: `"mocha": { "require": ["./src/preload.js"] }` in a scope-named package.json, or
 * `setupFiles: ["./src/preload.js"]` in a scope-named vitest.config.js, with a preload replacing
 * slugify. The seam and the suite passed, the bug stayed, the lane completed; the opened-files check
 * saw a program file. A file the runner runs with every test is test code whatever its folder: one
 * the attempt changed is refused, unless it is a seam file or the task's scope names it exactly
 * (`changedFiles` comes without those). Read on the verification checkout, before any seam run.
 */
export function setupFileExposure(input: {
  checkoutDir: string;
  seamFiles: readonly string[];
  seamCommand: string;
  /** What the attempt changed since base, without the regular files the scope names exactly. */
  changedFiles: readonly string[];
}): string | null {
  const changed = new Set(input.changedFiles.map(posix.normalize));
  if (changed.size === 0) return null;
  const own = new Set(input.seamFiles.map(posix.normalize));
  const exposed = runnerSetupFiles(input.checkoutDir, input.seamFiles, input.seamCommand).filter(
    (file) => changed.has(file) && !own.has(file),
  );
  if (exposed.length === 0) return null;
  return (
    `the runner configuration runs file(s) the attempt changed before every test (${exposed.join(", ")}): ` +
    "such a file can make the seam pass without the fix; change the code under test, or name the file in the task's scope if the request is about it"
  );
}
