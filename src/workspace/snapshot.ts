import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { DevflowError } from "../errors/index.js";

import { runGit } from "./git.js";

/**
 * The git tree of everything in `worktree` right now, untracked files included and ignored ones
 * left out, whatever the coder committed or left unstaged. It is built in a throw-away copy of the
 * index (GIT_INDEX_FILE), so the worktree's real index, HEAD and branch are untouched.
 */
export async function snapshotTree(worktree: string): Promise<string> {
  const scratch = await mkdtemp(join(tmpdir(), "devflow-index-"));
  const index = join(scratch, "index");
  try {
    // Starting from a copy of the real index keeps tracked-but-ignored files tracked (as a
    // commit would) and reuses its stat cache instead of re-hashing every file.
    const realIndex = resolve(
      worktree,
      (await runGit(worktree, ["rev-parse", "--git-path", "index"])).trim(),
    );
    await copyFile(realIndex, index).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") throw error;
    });
    const env = { GIT_INDEX_FILE: index };
    await runGit(worktree, ["add", "--all"], { env });
    return (await runGit(worktree, ["write-tree"], { env })).trim();
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

export interface TreeDiff {
  /** A unified diff (binary-safe, renames detected) from `fromTree` to `toTree`. */
  patch: string;
  /** Repo-relative paths added, modified or deleted; a rename lists both its old and new path. */
  files: string[];
}

/** What changed between two trees (or commits), independent of the user's diff settings. */
export async function diffTrees(worktree: string, fromTree: string, toTree: string): Promise<TreeDiff> {
  for (const rev of [fromTree, toTree]) {
    if (rev.trim() === "" || rev.startsWith("-")) {
      throw new DevflowError(
        "BAD_REVISION",
        `invalid tree ${JSON.stringify(rev)}: pass a tree or commit sha`,
      );
    }
  }
  const neutral = ["--no-ext-diff", "--no-textconv", "--no-color"];
  const patch = await runGit(worktree, [
    "diff",
    ...neutral,
    "--binary",
    "--find-renames",
    "--src-prefix=a/",
    "--dst-prefix=b/",
    fromTree,
    toTree,
    "--",
  ]);
  // --no-renames: a moved file counts as a change at both paths (both matter to scope checks).
  const names = await runGit(worktree, [
    "diff",
    ...neutral,
    "--name-only",
    "--no-renames",
    "-z",
    fromTree,
    toTree,
    "--",
  ]);
  const files = [...new Set(names.split("\0").filter((name) => name !== ""))].sort();
  return { patch, files };
}
