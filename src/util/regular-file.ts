import { lstatSync, readFileSync } from "node:fs";

/** The file's bytes if it is a regular file (a symlink planted in its place is not followed), else null. */
export function regularFileBytes(path: string): Buffer | null {
  try {
    return lstatSync(path).isFile() ? readFileSync(path) : null;
  } catch {
    return null;
  }
}
