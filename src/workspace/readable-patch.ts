import { runGit } from "./git.js";

/**
 * The largest file a patch shows as text when git would show it as binary: past it a file is left
 * as git's binary patch (a reviewer's excerpt of the diff would not reach it anyway).
 */
export const READABLE_MAX_BYTES = 256 * 1024;

/**
 * The most files git shows as binary that are read to judge whether they read as text (two `git
 * cat-file` each): past them the rest stay binary, so a change of thousands of binary files costs a
 * bounded time.
 */
export const READABLE_MAX_FILES = 200;

/**
 * Above this share of characters that are not text (NUL and other control characters but tab, line
 * and page breaks; bytes that are not UTF-8), a file is a real binary (an image, an archive) and
 * stays git's binary patch: shown as text it would be noise that eats a reviewer's budget.
 */
const NOT_TEXT_SHARE = 0.1;

// Every control character but \t \n \v \f \r, and U+FFFD (a byte that is not UTF-8 as git's output
// was decoded).
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it counts
const NOT_TEXT = /[\u0000-\u0008\u000e-\u001f\u007f\ufffd]/g;

/** Whether `content` reads as text: at most NOT_TEXT_SHARE of its characters are not text. */
export function readsAsText(content: string): boolean {
  if (content.length === 0) return true;
  return (content.match(NOT_TEXT)?.length ?? 0) / content.length <= NOT_TEXT_SHARE;
}

/**
 * `patch` (a `diffTrees` patch from `fromTree` to `toTree`) with every file git shows as binary but
 * whose content reads as text shown as text (`git diff --text`), after the rest.
 *
 * Review 58 (attack 58b): the critic reads only this patch, and git calls a file binary when its
 * first 8,000 bytes hold a NUL or when `.gitattributes` says so. One NUL in a comment of a source
 * file (node runs it as it is), or a `src/*.js binary` line, turned that file's diff into base85,
 * and a special case for the seam's input passed the critic unseen. The patch is for reading (the
 * critic, repair guidance, the user), never applied: a NUL in it is shown as "␀".
 *
 * A file past READABLE_MAX_BYTES, or mostly not text, or past the first READABLE_MAX_FILES binary
 * files, stays binary; so the critic's view stays bounded, as it is for any large change (ADR 0090).
 */
export async function withTextShownAsText(
  worktree: string,
  patch: string,
  fromTree: string,
  toTree: string,
  diffOptions: readonly string[],
  options: { env?: Record<string, string> },
): Promise<string> {
  if (!/^(?:GIT binary patch|Binary files .* differ)$/m.test(patch)) return patch;
  const readable = await binaryPathsThatReadAsText(worktree, fromTree, toTree, options);
  if (readable.length === 0) return patch;
  const literal = readable.map((p) => `:(literal)${p}`);
  const [rest, asText] = await Promise.all([
    runGit(
      worktree,
      ["diff", ...diffOptions, fromTree, toTree, "--", ".", ...readable.map((p) => `:(exclude,literal)${p}`)],
      options,
    ),
    runGit(
      worktree,
      ["diff", ...diffOptions, "--text", "--no-renames", fromTree, toTree, "--", ...literal],
      options,
    ),
  ]);
  // A NUL shown as the symbol for it: visible to a reader, and no raw NUL in a model's request.
  return rest + asText.replaceAll("\u0000", "\u2400");
}

/** The paths git's diff shows as binary whose content (new, else old) reads as text and is small. */
async function binaryPathsThatReadAsText(
  worktree: string,
  fromTree: string,
  toTree: string,
  options: { env?: Record<string, string> },
): Promise<string[]> {
  // `-\t-\t<path>` is numstat's binary; `--raw` alongside gives each path's object ids.
  const out = await runGit(
    worktree,
    [
      "diff",
      "--no-ext-diff",
      "--no-textconv",
      "--no-renames",
      "--no-abbrev",
      "--raw",
      "--numstat",
      "-z",
      fromTree,
      toTree,
    ],
    options,
  );
  const fields = out.split("\0");
  const blobOf = new Map<string, string>();
  const binary: string[] = [];
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] as string;
    if (field.startsWith(":")) {
      const [, , oldId = "", newId = ""] = field.slice(1).split(" ");
      const path = fields[++i] ?? "";
      blobOf.set(path, /^0+$/.test(newId) ? oldId : newId);
    } else if (field.startsWith("-\t-\t")) binary.push(field.slice(4));
  }
  const readable: string[] = [];
  for (const path of binary.slice(0, READABLE_MAX_FILES)) {
    const id = blobOf.get(path);
    if (!id) continue;
    const size = Number((await runGit(worktree, ["cat-file", "-s", id], options)).trim());
    if (!(size <= READABLE_MAX_BYTES)) continue;
    if (readsAsText(await runGit(worktree, ["cat-file", "blob", id], options))) readable.push(path);
  }
  return readable;
}
