import { type BigIntStats, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";

/**
 * The files of a checkout by stat, before a verification run where no checkout overlay catches
 * its writes (no mount namespace, or overlayfs refused: ADR 0040). Every non-directory entry, not
 * following symlinks (a dependency link is compared as a link); `skip`: directories (relative to
 * `dir`) of devflow's own output, such as a log directory a caller put inside the checkout. The key includes the ctime, which
 * no process can set back: a file the run changed and restored still differs.
 */
export type CheckoutStat = ReadonlyMap<string, string>;

export function statCheckout(dir: string, skip: readonly string[] = []): CheckoutStat {
  const files = new Map<string, string>();
  const walk = (rel: string): void => {
    if (skip.includes(rel)) return;
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(rel ? join(dir, rel) : dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(path);
      else {
        const s = statOf(join(dir, path));
        if (s) files.set(path, s);
      }
    }
  };
  walk("");
  return files;
}

/** The files of `before` that are gone or differ (content, mode, mtime or ctime) in `dir` now. Sorted. */
export function changedSinceStat(before: CheckoutStat, dir: string): string[] {
  const changed: string[] = [];
  for (const [path, was] of before) if (statOf(join(dir, path)) !== was) changed.push(path);
  return changed.sort();
}

function statOf(file: string): string | null {
  let s: BigIntStats;
  try {
    s = lstatSync(file, { bigint: true });
  } catch {
    return null;
  }
  if (s.isDirectory()) return "dir";
  return [s.mode, s.size, s.ino, s.mtimeNs, s.ctimeNs].join(":");
}
