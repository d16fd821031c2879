import { type BigIntStats, type Dirent, lstatSync, readdirSync } from "node:fs";
import { childPath, under } from "../util/byte-path.js";

/**
 * The files of a checkout by stat, before a verification run where no checkout overlay catches
 * its writes (no mount namespace, or overlayfs refused: ADR 0040). Every non-directory entry, not
 * following symlinks (a dependency link is compared as a link); `skip`: directories (relative to
 * `dir`) of devflow's own output, such as a log directory a caller put inside the checkout. The key includes the ctime, which
 * no process can set back: a file the run changed and restored still differs.
 */
export type CheckoutStat = ReadonlyMap<string, string>;

/**
 * Keyed by each file's path as bytes in a latin1 string (one char per byte): names are walked as
 * bytes (session-25 review, tracked-file-with-a-non-utf8-name-attack25): a name that is not UTF-8,
 * decoded, became U+FFFD, named no file, and a tracked file the run rewrote was never compared.
 */
export function statCheckout(dir: string, skip: readonly string[] = []): CheckoutStat {
  const files = new Map<string, string>();
  const walk = (rel: Buffer): void => {
    if (skip.includes(rel.toString("utf8"))) return;
    let entries: Dirent<Buffer>[];
    try {
      entries = readdirSync(under(dir, rel), { withFileTypes: true, encoding: "buffer" });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = childPath(rel, entry.name);
      if (entry.isDirectory()) walk(path);
      else {
        const s = statOf(under(dir, path));
        if (s) files.set(path.toString("latin1"), s);
      }
    }
  };
  walk(Buffer.alloc(0));
  return files;
}

/**
 * The files of `before` that are gone or differ (content, mode, mtime or ctime) in `dir` now,
 * named as UTF-8 (U+FFFD where a name is not). Sorted.
 */
export function changedSinceStat(before: CheckoutStat, dir: string): string[] {
  const changed: string[] = [];
  for (const [path, was] of before)
    if (statOf(under(dir, Buffer.from(path, "latin1"))) !== was)
      changed.push(Buffer.from(path, "latin1").toString("utf8"));
  return changed.sort();
}

function statOf(file: Buffer): string | null {
  let s: BigIntStats;
  try {
    s = lstatSync(file, { bigint: true });
  } catch {
    return null;
  }
  if (s.isDirectory()) return "dir";
  return [s.mode, s.size, s.ino, s.mtimeNs, s.ctimeNs].join(":");
}
