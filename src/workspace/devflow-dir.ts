import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const DEVFLOW_DIR = ".devflow";

/**
 * Creates `<repo>/.devflow/` with a `.gitignore` of `*`, so nothing devflow writes there (state,
 * artifacts, worktrees) ever shows up in `git status` or a commit. The user's own .gitignore is
 * never touched. Returns the `.devflow` path.
 */
export function ensureDevflowDir(repoRoot: string): string {
  const dir = join(repoRoot, DEVFLOW_DIR);
  mkdirSync(dir, { recursive: true });
  const ignoreFile = join(dir, ".gitignore");
  const wanted = "*\n";
  if (readIfExists(ignoreFile) !== wanted) writeFileSync(ignoreFile, wanted);
  return dir;
}

/** Where task worktrees live: `<repo>/.devflow/worktrees/`. */
export function worktreesDir(repoRoot: string): string {
  return join(repoRoot, DEVFLOW_DIR, "worktrees");
}

function readIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
