import { mkdir, realpath, writeFile } from "node:fs/promises";
import { dirname, relative, sep } from "node:path";
import { z } from "zod";
import { DEVFLOW_DIR } from "../home/paths.js";
import { defineTool, loadToolDescription } from "./define-tool.js";
import { ToolRefusal } from "./tool-refusal.js";
import { resolveNewFileInWorktree } from "./worktree-path.js";

export const WRITE_TEST_FILE_MAX_BYTES = 64 * 1024;
/** Top-level directories that belong to git and devflow, never to a repro test. */
const RESERVED_DIRS = new Set([".git", DEVFLOW_DIR]);

const schema = z.object({
  path: z
    .string()
    .min(1)
    .describe('New file, relative to the repository root, e.g. "tests/repro_cart_total.test.ts"'),
  content: z.string().min(1).describe("The complete file content"),
});

export const writeTestFileTool = defineTool({
  name: "write_test_file",
  description: loadToolDescription("write_test_file"),
  schema,
  narrowHint: "keep the repro test short",
  async run(args, ctx) {
    const size = Buffer.byteLength(args.content);
    if (size > WRITE_TEST_FILE_MAX_BYTES) {
      throw new ToolRefusal(
        `The content is ${size} bytes; a repro test must stay under ${WRITE_TEST_FILE_MAX_BYTES} bytes. Write a narrower test.`,
      );
    }
    const target = await resolveNewFileInWorktree(ctx.worktree, args.path);
    const top = target.relative.split("/")[0] ?? "";
    if (RESERVED_DIRS.has(top)) {
      throw new ToolRefusal(
        `"${args.path}" is inside ${top}/, which is not part of the project. Put the test with the project's tests.`,
      );
    }
    await mkdir(dirname(target.absolute), { recursive: true });
    // mkdir may have walked through a path swapped for a symlink since the check; look again.
    const parentReal = await realpath(dirname(target.absolute));
    const rel = relative(await realpath(ctx.worktree), parentReal);
    if (rel.startsWith(`..${sep}`) || rel === "..") {
      throw new ToolRefusal(
        `"${args.path}" leads outside the worktree; choose a directory inside the repository.`,
      );
    }
    try {
      // "wx" fails on any existing entry, including a dangling symlink: never overwrite.
      await writeFile(target.absolute, args.content, { flag: "wx" });
    } catch (error) {
      if (error instanceof Error && "code" in error && error.code === "EEXIST") {
        throw new ToolRefusal(
          `"${target.relative}" already exists and may not be changed. Existing files are read-only for you; write the repro test to a new file name.`,
        );
      }
      throw error;
    }
    ctx.written.add(target.relative);
    return `Created ${target.relative} (${size} bytes). Run it with run_command to see it fail.`;
  },
});
