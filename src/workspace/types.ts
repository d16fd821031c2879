import type { GitLink } from "./git-link.js";

/** Where one task's work happens. The user's own checkout is never one of these. */
export interface TaskWorkspace {
  /** The repository devflow works for: the user's repo (worktree) or the clone itself (clone). */
  repoRoot: string;
  /** The directory the coder and verifiers run in. */
  worktree: string;
  /** `devflow/<taskId>`. */
  branch: string;
  /** The commit the task branched from; diffs and baselines are taken against it. */
  baseCommit: string;
  kind: "worktree" | "clone";
  /** The checkout's real git dir and `.git` link, recorded before any coder ran (ADR 0022). */
  gitLink?: GitLink;
  /**
   * The index devflow's checkout of the base left in this checkout, read right after it and before
   * any coder ran (bytes and time): only when devflow made or reset the checkout in this process.
   * The first snapshot starts from its stat data (`seedSnapshotIndex`, issue 11).
   */
  baseIndex?: OwnIndex;
}

/** An index file's bytes and its modification time (git's racy-entry rule needs the time). */
export interface OwnIndex {
  bytes: Buffer;
  mtimeMs: number;
}
