import { lstat, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { defineTool, loadToolDescription } from "./define-tool.js";
import { ToolRefusal } from "./tool-refusal.js";
import { globFilter, listRepoFiles } from "./tracked-files.js";
import { resolveInWorktree } from "./worktree-path.js";

export const SEARCH_DEFAULT_HITS = 50;
export const SEARCH_MAX_HITS = 200;
/** Bigger files (bundles, lockfiles, data) are skipped: their hits are noise and slow to scan. */
const MAX_FILE_BYTES = 1024 * 1024;
const MAX_LINE_CHARS = 240;

const schema = z.object({
  pattern: z.string().min(1).describe("JavaScript regular expression, or plain text when literal is true"),
  literal: z.boolean().optional().describe("Match the pattern as plain text (default false)"),
  case_insensitive: z.boolean().optional().describe("Default false"),
  glob: z.string().min(1).optional().describe('Only search files matching this glob, e.g. "src/**/*.ts"'),
  max_results: z
    .number()
    .int()
    .min(1)
    .max(SEARCH_MAX_HITS)
    .optional()
    .describe(`Default ${SEARCH_DEFAULT_HITS}`),
});

export const searchTool = defineTool({
  name: "search",
  description: loadToolDescription("search"),
  schema,
  narrowHint: 'use a more specific "pattern", restrict files with "glob", or lower "max_results"',
  async run(args, ctx) {
    const regex = compile(args.pattern, args.literal ?? false, args.case_insensitive ?? false);
    const limit = args.max_results ?? SEARCH_DEFAULT_HITS;
    const files = (await listRepoFiles(ctx.worktree, ctx.signal)).filter(globFilter(args.glob));
    const hits: string[] = [];
    let skipped = 0;
    let truncated = false;
    for (const file of files) {
      if (ctx.signal.aborted) break;
      const text = await readText(ctx.worktree, file);
      if (text === null) {
        skipped += 1;
        continue;
      }
      const lines = text.split(/\r?\n/);
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i] ?? "";
        if (!regex.test(line)) continue;
        if (hits.length === limit) {
          truncated = true;
          break;
        }
        const shown = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)} [line cut]` : line;
        hits.push(`${file}:${i + 1}: ${shown.trim()}`);
      }
      if (truncated) break;
    }
    const scope = args.glob ? ` in files matching "${args.glob}"` : "";
    const note =
      skipped > 0 ? ` (${skipped} skipped: binary, over 1 MiB, or leading outside the worktree)` : "";
    if (hits.length === 0) return `No matches for /${args.pattern}/${scope}${note}.`;
    const header = truncated
      ? `First ${hits.length} matches for /${args.pattern}/${scope}; there are more. Narrow the pattern or the glob.${note}`
      : `${hits.length} matches for /${args.pattern}/${scope}${note}:`;
    return [header, ...hits].join("\n");
  },
});

function compile(pattern: string, literal: boolean, caseInsensitive: boolean): RegExp {
  const source = literal ? pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") : pattern;
  try {
    return new RegExp(source, caseInsensitive ? "i" : "");
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new ToolRefusal(
      `The pattern is not a valid regular expression (${why}). Fix it, or pass literal: true.`,
    );
  }
}

/** The file's text, or null when it is binary, too large, gone, or a symlink leading outside. */
async function readText(worktree: string, file: string): Promise<string | null> {
  const path = join(worktree, file);
  try {
    if ((await lstat(path)).isSymbolicLink()) await resolveInWorktree(worktree, file);
    const info = await stat(path);
    if (!info.isFile() || info.size > MAX_FILE_BYTES) return null;
    const bytes = await readFile(path);
    if (bytes.subarray(0, 8192).includes(0)) return null;
    return bytes.toString("utf8");
  } catch {
    return null;
  }
}
