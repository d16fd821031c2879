import { lstat, mkdir, realpath, stat, writeFile } from "node:fs/promises";
import { dirname, relative, sep } from "node:path";
import { z } from "zod";
import { DEVFLOW_DIR } from "../home/paths.js";
import { defineTool, loadToolDescription } from "./define-tool.js";
import { ToolRefusal } from "./tool-refusal.js";
import { resolveInWorktree, resolveNewFileInWorktree } from "./worktree-path.js";

/** A coder writes source files, not artifacts: larger content is almost certainly a mistake. */
export const WRITE_FILE_MAX_BYTES = 1024 * 1024;
/** Directories that belong to git and devflow, at any depth (a nested repository's .git too). */
const RESERVED_DIRS = new Set([".git", DEVFLOW_DIR]);

const schema = z.object({
  path: z.string().min(1).describe('File relative to the repository root, e.g. "src/util/dates.ts"'),
  content: z.string().describe("The complete new content of the file"),
});

/**
 * Refuses a repo-relative (posix) path inside .git/ or .devflow/: git's own state and devflow's
 * artifacts are not the project, and editing them would corrupt the run or the repository.
 */
export function assertNotReserved(relativePath: string, input: string): void {
  const reserved = relativePath.split("/").find((segment) => RESERVED_DIRS.has(segment));
  if (reserved !== undefined) {
    throw new ToolRefusal(
      `"${input}" is inside ${reserved}/, which belongs to git or devflow, not to the project. Change project files only.`,
    );
  }
}

/** The worktree-relative (posix) real path of an existing file, after following symlinks. */
export async function realRelative(worktree: string, absolute: string): Promise<string> {
  return relative(await realpath(worktree), await realpath(absolute))
    .split(sep)
    .join("/");
}

/**
 * The file an edit may write, after every check: inside the worktree (also after following a
 * symlink), not in a reserved directory, not a directory. Returns its real absolute path.
 */
export async function resolveEditableFile(
  worktree: string,
  input: string,
): Promise<{ absolute: string; relative: string }> {
  const target = await resolveInWorktree(worktree, input);
  const real = await realpath(target.absolute);
  assertNotReserved(target.relative, input);
  assertNotReserved(await realRelative(worktree, real), input);
  if ((await stat(real)).isDirectory()) {
    throw new ToolRefusal(`"${target.relative}" is a directory; give the path of a file.`);
  }
  return { absolute: real, relative: target.relative };
}

export const writeFileTool = defineTool({
  name: "write_file",
  description: loadToolDescription("write_file"),
  schema,
  narrowHint: "write less at once",
  async run(args, ctx) {
    const size = Buffer.byteLength(args.content);
    if (size > WRITE_FILE_MAX_BYTES) {
      throw new ToolRefusal(
        `The content is ${size} bytes; write_file accepts at most ${WRITE_FILE_MAX_BYTES}. Split the file, or change the existing one with edit_file.`,
      );
    }
    const target = await resolveNewFileInWorktree(ctx.worktree, args.path);
    assertNotReserved(target.relative, args.path);
    const existing = await lstat(target.absolute).catch((error: unknown) => {
      if (error instanceof Error && "code" in error && error.code === "ENOENT") return null;
      throw error;
    });
    if (existing !== null) {
      return overwrite(ctx.worktree, target.absolute, args.path, args.content, existing.isSymbolicLink());
    }
    return create(ctx.worktree, target, args.content, ctx.written);
  },
});

async function overwrite(
  worktree: string,
  absolute: string,
  input: string,
  content: string,
  isLink: boolean,
): Promise<string> {
  if (isLink) {
    const dangling = await realpath(absolute).then(
      () => false,
      () => true,
    );
    if (dangling) {
      throw new ToolRefusal(
        `"${input}" is a symlink whose target does not exist; writing through it could create a file elsewhere. Write to another path.`,
      );
    }
  }
  const file = await resolveEditableFile(worktree, input);
  const before = (await stat(file.absolute)).size;
  await writeFile(file.absolute, content);
  return `Overwrote ${file.relative} (${Buffer.byteLength(content)} bytes, was ${before} bytes).`;
}

async function create(
  worktree: string,
  target: { absolute: string; relative: string },
  content: string,
  written: Set<string>,
): Promise<string> {
  await mkdir(dirname(target.absolute), { recursive: true });
  // mkdir may have walked through a directory swapped for a symlink since the check; look again.
  const parent = await realRelative(worktree, dirname(target.absolute));
  if (parent === ".." || parent.startsWith("../")) {
    throw new ToolRefusal(
      `"${target.relative}" leads outside the worktree; choose a directory inside the repository.`,
    );
  }
  assertNotReserved(parent, target.relative);
  try {
    // "wx": a file that appeared since the check is not silently replaced.
    await writeFile(target.absolute, content, { flag: "wx" });
  } catch (error) {
    if (error instanceof Error && "code" in error && error.code === "EEXIST") {
      throw new ToolRefusal(
        `"${target.relative}" appeared while it was being created; read it, then call write_file again.`,
      );
    }
    throw error;
  }
  written.add(target.relative);
  return `Created ${target.relative} (${Buffer.byteLength(content)} bytes).`;
}
