import { readFile, stat } from "node:fs/promises";
import { z } from "zod";
import { defineTool, loadToolDescription } from "./define-tool.js";
import { ToolRefusal } from "./tool-refusal.js";
import { resolveInWorktree } from "./worktree-path.js";

export const READ_FILE_DEFAULT_LINES = 400;
/** Larger files are refused: the model should search them instead of paging through megabytes. */
export const READ_FILE_MAX_BYTES = 4 * 1024 * 1024;
const MAX_LINE_CHARS = 2000;

const schema = z
  .object({
    path: z.string().min(1).describe("Path relative to the repository root"),
    start_line: z.number().int().min(1).optional().describe("First line to show (1-based, default 1)"),
    end_line: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(`Last line to show (inclusive; default start_line + ${READ_FILE_DEFAULT_LINES - 1})`),
  })
  .refine((a) => a.end_line === undefined || a.start_line === undefined || a.end_line >= a.start_line, {
    message: "end_line must be greater than or equal to start_line",
    path: ["end_line"],
  });

export const readFileTool = defineTool({
  name: "read_file",
  description: loadToolDescription("read_file"),
  schema,
  narrowHint:
    'read a smaller range with "start_line" and "end_line", or use search to find the lines you need',
  async run(args, ctx) {
    const target = await resolveInWorktree(ctx.worktree, args.path);
    const info = await stat(target.absolute);
    if (info.isDirectory()) {
      throw new ToolRefusal(
        `"${target.relative}" is a directory. Use list_files with pattern "${target.relative}/**".`,
      );
    }
    if (info.size > READ_FILE_MAX_BYTES) {
      throw new ToolRefusal(
        `"${target.relative}" is ${info.size} bytes, too large to read (limit ${READ_FILE_MAX_BYTES}). Use search to find the relevant lines.`,
      );
    }
    const bytes = await readFile(target.absolute);
    if (bytes.subarray(0, 8192).includes(0)) {
      return `"${target.relative}" is a binary file (${info.size} bytes); it cannot be shown as text.`;
    }
    const lines = bytes.toString("utf8").split(/\r?\n/);
    if (lines.length > 1 && lines.at(-1) === "") lines.pop();
    const total = lines.length;
    const start = args.start_line ?? 1;
    if (total === 0 || (total === 1 && lines[0] === "")) return `"${target.relative}" is empty.`;
    if (start > total) {
      throw new ToolRefusal(`"${target.relative}" has ${total} lines; start_line ${start} is past the end.`);
    }
    const end = Math.min(args.end_line ?? start + READ_FILE_DEFAULT_LINES - 1, total);
    const width = String(end).length;
    const body = lines.slice(start - 1, end).map((line, i) => {
      const text = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)} [line cut]` : line;
      return `${String(start + i).padStart(width)}| ${text}`;
    });
    const more = end < total ? ` Call again with start_line=${end + 1} for more.` : "";
    return [`${target.relative} (lines ${start}-${end} of ${total}).${more}`, ...body].join("\n");
  },
});
