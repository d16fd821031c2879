import { lstatSync, realpathSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import type { RepoMounts } from "../process/mount-namespace.js";

/**
 * The checkout's `node_modules/.bin` when `node_modules` is devflow's link to the user's install:
 * a symlink to one of the run's dependency folders (the mounts keep those read-only), or, for a
 * caller without mounts, a symlink leading out of the checkout. A `node_modules` of the tree itself
 * is left off, so an attempt cannot put a program of its own on PATH by committing one.
 */
export function installedBinDirs(cwd: string, mounts: RepoMounts | undefined): string[] {
  const modules = join(cwd, "node_modules");
  try {
    if (!lstatSync(modules).isSymbolicLink()) return [];
    const target = realpathSync(modules);
    if (mounts) {
      const installed = (mounts.dependencies ?? []).map((d) => realpathOr(d.path));
      return installed.includes(target) ? [join(modules, ".bin")] : [];
    }
    const inside = relative(realpathSync(cwd), target);
    return inside === "" || (!inside.startsWith("..") && !isAbsolute(inside)) ? [] : [join(modules, ".bin")];
  } catch {
    return [];
  }
}

function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
