import { z } from "zod";
import { defineTool, loadToolDescription } from "./define-tool.js";
import { globFilter, listRepoFiles } from "./tracked-files.js";

export const LIST_FILES_DEFAULT = 200;
export const LIST_FILES_MAX = 1000;

const schema = z.object({
  pattern: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Glob over repo-relative paths, e.g. "src/**/*.ts"; without a "/" it matches file names anywhere',
    ),
  max_results: z
    .number()
    .int()
    .min(1)
    .max(LIST_FILES_MAX)
    .optional()
    .describe(`Default ${LIST_FILES_DEFAULT}`),
});

export const listFilesTool = defineTool({
  name: "list_files",
  description: loadToolDescription("list_files"),
  schema,
  narrowHint: 'pass a narrower "pattern" (e.g. "src/api/**") or a smaller "max_results"',
  async run(args, ctx) {
    const matches = (await listRepoFiles(ctx.worktree, ctx.signal)).filter(globFilter(args.pattern));
    const limit = args.max_results ?? LIST_FILES_DEFAULT;
    const what = args.pattern ? `matching "${args.pattern}"` : "in the repository";
    if (matches.length === 0) return `No files ${what}.`;
    const shown = matches.slice(0, limit);
    const header =
      matches.length > shown.length
        ? `${matches.length} files ${what}; the first ${shown.length} are shown. Narrow the pattern to see the rest.`
        : `${matches.length} files ${what}:`;
    return [header, ...shown].join("\n");
  },
});
