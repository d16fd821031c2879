import { existsSync, lstatSync, readlinkSync, realpathSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { isGitIgnored } from "../../workspace/index.js";

/** Folders that hold installed dependencies: never tracked, so a fresh worktree lacks them. */
const DEPENDENCY_DIRS = ["node_modules", ".venv", "venv", "vendor/bundle"];

/**
 * A new worktree has no installed dependencies, so the project's own tests could not run there.
 * Link the user's installed ones (read-only use) instead of reinstalling on every task. Only folders the
 * project already ignores are linked, so the link can never end up in a commit.
 */
export async function linkDependencies(repoRoot: string, worktree: string): Promise<string[]> {
  const linked: string[] = [];
  for (const dir of DEPENDENCY_DIRS) {
    const source = join(repoRoot, dir);
    const target = join(worktree, dir);
    if (existsSync(source) && !existsSync(target) && (await isGitIgnored(worktree, dir))) {
      symlinkSync(source, target, "dir");
      linked.push(dir);
    }
  }
  return linked;
}

/** The links linkDependencies makes, as `{ path, target }` (a reset of the verification checkout keeps them). */
export function dependencyLinks(repoRoot: string): { path: string; target: string }[] {
  return DEPENDENCY_DIRS.map((dir) => ({ path: dir, target: join(repoRoot, dir) }));
}

/**
 * The real directories of the user's installed dependencies (a `node_modules` that is itself a
 * link, as in pnpm or a monorepo, leads out of the repository): what a mount plan keeps read-only.
 */
export function installedDependencyDirs(repoRoot: string): string[] {
  const dirs: string[] = [];
  for (const dir of DEPENDENCY_DIRS) {
    try {
      dirs.push(realpathSync(join(repoRoot, dir)));
    } catch {
      // not installed
    }
  }
  return [...new Set(dirs)];
}

/** Whether `path` in `worktree` is exactly a dependency link devflow made (not something the coder put there). */
export function isDependencyLink(repoRoot: string, worktree: string, path: string): boolean {
  const link = dependencyLinks(repoRoot).find((l) => l.path === path.replace(/\/$/, ""));
  if (!link) return false;
  try {
    const at = join(worktree, link.path);
    return lstatSync(at).isSymbolicLink() && readlinkSync(at) === link.target;
  } catch {
    return false;
  }
}
