import { type FSWatcher, readdirSync, watch } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

/**
 * Watches the directories of a checkout during a verification run where no overlay catches its
 * writes (ADR 0040 item 3, ADR 0048): a directory of the checkout renamed away and back (its
 * files keep their inode, mtime and ctime, so the stat of checkout-stat.ts sees nothing) is
 * reported by name. inotify queues the rename in the parent directory while the run goes on, so a
 * swap and swap-back between two looks is still seen. `skip` as for statCheckout.
 */
export interface DirectoryWatch {
  /**
   * Stops watching. `moved`: the directories (relative, "/" separators) renamed, removed or
   * replaced during the run, sorted; the checkout itself or a directory above it by its absolute path. `unwatched`: why part of the tree could not be watched, or null.
   */
  stop(): Promise<{ moved: string[]; unwatched: string | null }>;
}

export function watchCheckoutDirectories(dir: string, skip: readonly string[] = []): DirectoryWatch {
  const moved = new Set<string>();
  const watchers: FSWatcher[] = [];
  let unwatched: string | null = null;
  const walk = (rel: string): void => {
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(rel ? join(dir, rel) : dir, { withFileTypes: true });
    } catch {
      return;
    }
    const children = entries
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .filter((name) => !skip.includes(rel ? `${rel}/${name}` : name));
    if (children.length === 0) return;
    const names = new Set(children);
    try {
      const watcher = watch(rel ? join(dir, rel) : dir, { persistent: false }, (event, name) => {
        if (event === "rename" && name !== null && names.has(String(name)))
          moved.add(rel ? `${rel}/${String(name)}` : String(name));
      });
      watcher.on("error", () => {});
      watchers.push(watcher);
    } catch (e) {
      // Out of inotify watches, or none on this system: say so instead of watching part of the tree.
      unwatched ??= e instanceof Error ? e.message : String(e);
    }
    for (const name of children) walk(rel ? `${rel}/${name}` : name);
  };
  walk("");
  // The checkout itself and every directory above it (third review,
  // test-files-swap-the-whole-verification-checkout-and-swap-it-back): renaming the checkout, or
  // a directory it is in, away and a repaired copy into its place swaps the whole tree, which no
  // watch inside it sees. A rename of the next component of the checkout's path is reported by
  // the path renamed (a handful of watches, whatever the checkout's size).
  let child = resolve(dir);
  for (let parent = dirname(child); ; parent = dirname(parent)) {
    const name = basename(child);
    const path = child;
    try {
      const watcher = watch(parent, { persistent: false }, (event, renamed) => {
        if (event === "rename" && renamed !== null && String(renamed) === name) moved.add(path);
      });
      watcher.on("error", () => {});
      watchers.push(watcher);
    } catch (e) {
      unwatched ??= e instanceof Error ? e.message : String(e);
    }
    if (dirname(parent) === parent) break;
    child = parent;
  }
  return {
    async stop() {
      // Let inotify's queued events reach the callbacks before the watchers close.
      await new Promise((resolve) => setTimeout(resolve, 20));
      for (const w of watchers) w.close();
      return { moved: [...moved].sort(), unwatched };
    },
  };
}
