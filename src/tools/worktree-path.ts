import { lstat, realpath } from "node:fs/promises";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { ToolRefusal } from "./tool-refusal.js";

/** A path a tool may touch: absolute on disk, and relative to the worktree (posix separators) for reports. */
export interface WorktreePath {
  absolute: string;
  relative: string;
}

const isInside = (root: string, candidate: string): boolean => {
  const rel = relative(root, candidate);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
};

const toPosix = (p: string): string => p.split(sep).join("/");

/**
 * Resolves a model-supplied path against the worktree and refuses it when it points outside:
 * `../` climbs, absolute paths elsewhere, and symlinks whose target lies outside. Absolute paths
 * inside the worktree are accepted because command output (stack traces) shows them that way.
 */
export async function resolveInWorktree(worktree: string, input: string): Promise<WorktreePath> {
  const root = resolve(worktree);
  const candidate = lexicallyInside(root, input);
  const rootReal = await realpath(root);
  let real: string;
  try {
    real = await realpath(candidate);
  } catch (error) {
    if (isMissing(error)) {
      throw new ToolRefusal(
        `"${input}" does not exist in the worktree. Use list_files to see which paths exist.`,
      );
    }
    throw error;
  }
  if (!isInside(rootReal, real)) {
    throw new ToolRefusal(
      `"${input}" resolves through a symlink to a location outside the worktree; only files inside the repository can be used.`,
    );
  }
  return { absolute: candidate, relative: toPosix(relative(root, candidate)) || "." };
}

/**
 * Like resolveInWorktree, for a file that does not exist yet: the nearest existing ancestor
 * directory must resolve (after symlinks) inside the worktree.
 */
export async function resolveNewFileInWorktree(worktree: string, input: string): Promise<WorktreePath> {
  const root = resolve(worktree);
  const candidate = lexicallyInside(root, input);
  if (candidate === root) throw new ToolRefusal(`"${input}" is the worktree root, not a file path.`);
  const rootReal = await realpath(root);
  let ancestor = dirname(candidate);
  for (;;) {
    try {
      await lstat(ancestor);
      break;
    } catch (error) {
      if (!isMissing(error)) throw error;
      ancestor = dirname(ancestor);
    }
  }
  const ancestorReal = await realpath(ancestor);
  if (!isInside(rootReal, ancestorReal)) {
    throw new ToolRefusal(
      `"${input}" goes through a symlinked directory that points outside the worktree; choose a directory inside the repository.`,
    );
  }
  return { absolute: candidate, relative: toPosix(relative(root, candidate)) };
}

function lexicallyInside(root: string, input: string): string {
  if (input.trim() === "")
    throw new ToolRefusal("The path is empty. Give a path relative to the repository root.");
  if (input.includes("\0"))
    throw new ToolRefusal("The path contains a NUL byte; give a plain relative path.");
  const candidate = resolve(root, input);
  if (!isInside(root, candidate)) {
    const how = isAbsolute(input) ? "is an absolute path outside the worktree" : "climbs out of the worktree";
    throw new ToolRefusal(
      `"${input}" ${how}. Only paths inside the repository are allowed; use a path relative to the repository root, e.g. "src/index.ts".`,
    );
  }
  return candidate;
}

function isMissing(error: unknown): boolean {
  return error instanceof Error && "code" in error && (error.code === "ENOENT" || error.code === "ENOTDIR");
}
