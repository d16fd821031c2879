import { realpathSync } from "node:fs";
import { resolve } from "node:path";

/** Compares paths after resolving symlinks (git reports real paths; /tmp is a symlink on macOS). */
export function samePath(a: string, b: string): boolean {
  return canonicalPath(a) === canonicalPath(b);
}

export function canonicalPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
