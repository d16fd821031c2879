import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { regularFileBytes } from "../util/regular-file.js";

// A report run the package manager starts (ADR 0088): for a package command devflow cannot run as
// the package manager would (`pnpm test` with a `pretest`: yarn 1 and pnpm with
// enable-pre-post-scripts run it, yarn 2+ and pnpm by default do not; a script reading npm's
// configuration). The command runs as written and the package manager decides what runs; only
// package.json's `scripts` are base's for the run, with the runner's script asking for its report.

/** The part of a pinned invocation that says the package manager runs it (RunnerInvocation.packageManager). */
export interface PackageManagerRun {
  command: string;
  scriptName: string;
  scripts: Readonly<Record<string, string>>;
}

/** `fn`'s result, or why the checkout's package.json could not be given base's scripts (nothing ran). */
export type WithBaseScripts<T> = { kind: "ran"; value: T } | { kind: "refused"; failure: string };

/**
 * Runs `fn` (the package command as written) with the checkout's package.json holding base's
 * scripts, `runnerScript` (the pinned script with the report flags) as the one that invokes the
 * runner, and every other field as the checkout has it; puts the file's bytes back after.
 *
 * Written by devflow before the run, not by the run itself: the run's own writes to tracked files
 * are findings (run-command.ts), and behind the checkout overlay (ADR 0040) the file is then in
 * the checkout the overlay shows. Put back after: what is read from the checkout before its next
 * reset (a console run after a failed report run) must be the tree's package.json. A crash in
 * between leaves the rewrite, which the next reset's stat check sees and undoes. A package.json
 * that is not a regular file or not JSON is refused (nothing is guessed or written through).
 */
export async function withBaseScripts<T>(
  cwd: string,
  run: PackageManagerRun,
  runnerScript: string,
  fn: () => Promise<T>,
): Promise<WithBaseScripts<T>> {
  const path = join(cwd, "package.json");
  const before = regularFileBytes(path);
  if (before === null)
    return {
      kind: "refused",
      failure:
        "the checkout's package.json is not a regular file: the package manager cannot be given base's scripts",
    };
  let json: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(before.toString("utf8"));
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
      throw new Error("not an object");
    json = parsed as Record<string, unknown>;
  } catch (error) {
    return {
      kind: "refused",
      failure: `the checkout's package.json could not be read as JSON (${error instanceof Error ? error.message : String(error)})`,
    };
  }
  replaceFile(
    path,
    `${JSON.stringify({ ...json, scripts: scriptsForTheRun(run, runnerScript) }, null, 2)}\n`,
  );
  try {
    return { kind: "ran", value: await fn() };
  } finally {
    replaceFile(path, before);
  }
}

/**
 * Base's scripts with `runnerScript` as the runner's, and no `post<name>` of any script: devflow
 * runs none on its own path either (ADR 0085), and a package manager runs one only after a green
 * run, so base (red: the seam's test fails there) never shows what it does. A posttest that rewrote
 * a tracked file on the first green run, the correct fix's, was a tamper finding (review, stop 48,
 * attack 54c).
 */
function scriptsForTheRun(run: PackageManagerRun, runnerScript: string): Record<string, string> {
  const scripts: Record<string, string> = {};
  for (const [name, text] of Object.entries(run.scripts))
    if (!(name.startsWith("post") && name.slice(4) in run.scripts)) scripts[name] = text;
  scripts[run.scriptName] = runnerScript;
  return scripts;
}

/** Removes what is at `path` and writes a new file there (a link planted meanwhile is never written through). */
function replaceFile(path: string, content: string | Buffer): void {
  rmSync(path, { recursive: true, force: true });
  writeFileSync(path, content, { flag: "wx" });
}
