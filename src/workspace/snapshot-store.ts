import { resolve } from "node:path";

/**
 * Where the snapshots of a coder's checkout are written and read (ADR 0024): the task's
 * verification repository, devflow's own, never the git dir the coder's checkout points at. The
 * coder's checkout is read as a work tree only, so its `.git/config` (filters, fsmonitor),
 * `info/exclude`, index and any objects it planted are not trusted.
 */
export interface SnapshotStore {
  /** The verification repository's git dir (objects; the user's objects reached through alternates). */
  gitDir: string;
  /** The index snapshots are built in, kept between attempts so unchanged files are not re-hashed. */
  indexFile: string;
  /** The task's base commit: a first snapshot starts from its tree (tracked-but-ignored files stay). */
  baseCommit: string;
  /** Pathspecs left out of every snapshot: devflow's own home when the checkout is the repo (URL clone). */
  exclude: string[];
  /** The user's repository's object dir: a committed snapshot's objects are copied there. */
  userObjects: string;
  /**
   * Where the hash of the snapshot index is recorded after every snapshot (the task's artifacts):
   * the finished checkout is reused by a later task only with that index (ADR 0050, fourth slice).
   */
  indexRecord?: string;
}

/** Keyed by the coder's checkout, pinned when devflow opens the verification checkout (like ADR 0022's git dir). */
const STORES = new Map<string, SnapshotStore>();

/** From now on snapshots and diffs of `worktree` use `store`. */
export function pinSnapshotStore(worktree: string, store: SnapshotStore): void {
  STORES.set(resolve(worktree), store);
}

/** The store pinned for `worktree`, or null (then snapshots go to the checkout's own git dir). */
export function snapshotStoreOf(worktree: string): SnapshotStore | null {
  return STORES.get(resolve(worktree)) ?? null;
}

/** Git reading `worktree` as a work tree, with devflow's repository and snapshot index. */
export function storeEnv(store: SnapshotStore, worktree: string): Record<string, string> {
  return { GIT_DIR: store.gitDir, GIT_WORK_TREE: resolve(worktree), GIT_INDEX_FILE: store.indexFile };
}
