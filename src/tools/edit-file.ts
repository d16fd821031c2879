import { readFile, stat, writeFile } from "node:fs/promises";
import { z } from "zod";
import { defineTool, loadToolDescription } from "./define-tool.js";
import { READ_FILE_MAX_BYTES } from "./read-file.js";
import { ToolRefusal } from "./tool-refusal.js";
import { resolveEditableFile } from "./write-file.js";

/** Lines of the edited region (plus context) shown back, so the model can check without re-reading. */
const SHOWN_CONTEXT_LINES = 2;
const SHOWN_MAX_LINES = 30;
/** How many places an ambiguous or near-miss answer lists. */
const LISTED_PLACES = 10;

const schema = z.object({
  path: z.string().min(1).describe("File relative to the repository root"),
  old_string: z
    .string()
    .min(
      1,
      "old_string is empty: copy the exact text to replace from read_file (to create a file, use write_file)",
    )
    .describe("The exact text to replace, including indentation; it must occur exactly once in the file"),
  new_string: z.string().describe("The text to put in its place (empty to delete it)"),
});

export const editFileTool = defineTool({
  name: "edit_file",
  description: loadToolDescription("edit_file"),
  schema,
  narrowHint: "make a smaller edit",
  async run(args, ctx) {
    if (args.old_string === args.new_string) {
      throw new ToolRefusal("old_string and new_string are identical, so nothing would change.");
    }
    const file = await resolveEditableFile(ctx.worktree, args.path).catch((error: unknown) => {
      if (error instanceof ToolRefusal && error.message.includes("does not exist")) {
        throw new ToolRefusal(`${error.message} To create a new file, use write_file.`);
      }
      throw error;
    });
    const size = (await stat(file.absolute)).size;
    if (size > READ_FILE_MAX_BYTES) {
      throw new ToolRefusal(
        `"${file.relative}" is ${size} bytes, too large to edit here (limit ${READ_FILE_MAX_BYTES}).`,
      );
    }
    const bytes = await readFile(file.absolute);
    if (bytes.subarray(0, 8192).includes(0)) {
      throw new ToolRefusal(`"${file.relative}" is a binary file; edit_file changes text files only.`);
    }
    const text = bytes.toString("utf8");
    const edit = locate(text, args.old_string, args.new_string, file.relative);
    const updated =
      text.slice(0, edit.index) + edit.newString + text.slice(edit.index + edit.oldString.length);
    await writeFile(file.absolute, updated);
    return describeEdit(file.relative, updated, edit);
  },
});

interface Edit {
  index: number;
  oldString: string;
  newString: string;
}

/**
 * The one place old_string matches. A file with CRLF line ends is matched with the model's "\n"
 * converted (models rarely reproduce "\r"); every other difference is the model's to fix.
 */
function locate(text: string, oldString: string, newString: string, path: string): Edit {
  const candidates: Edit[] = [{ index: -1, oldString, newString }];
  if (text.includes("\r\n") && !oldString.includes("\r\n") && oldString.includes("\n")) {
    const crlf = (s: string) => s.replace(/\r?\n/g, "\r\n");
    candidates.push({ index: -1, oldString: crlf(oldString), newString: crlf(newString) });
  }
  for (const candidate of candidates) {
    const places = occurrences(text, candidate.oldString);
    if (places.length === 1) return { ...candidate, index: places[0] ?? 0 };
    if (places.length > 1) {
      const lines = places.slice(0, LISTED_PLACES).map((i) => lineOf(text, i));
      const more = places.length > LISTED_PLACES ? ", ..." : "";
      throw new ToolRefusal(
        `old_string occurs ${places.length} times in "${path}" (at lines ${lines.join(", ")}${more}). Include more of the surrounding lines in old_string so that it matches exactly one place.`,
      );
    }
  }
  throw new ToolRefusal(`old_string was not found in "${path}".${nearMiss(text, oldString)}`);
}

/** Start offsets of every occurrence, overlapping ones included (each makes the match ambiguous). */
function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + 1)) found.push(i);
  return found;
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/** Where the first line of old_string appears with other whitespace: the usual cause of a miss. */
function nearMiss(text: string, oldString: string): string {
  const advice =
    " old_string must match the file exactly, including indentation, blank lines and line breaks: read_file the lines again and copy them.";
  const first = oldString
    .split(/\r?\n/)
    .map((line) => line.trim())
    .find((line) => line !== "");
  if (first === undefined) return advice;
  const lines = text
    .split(/\r?\n/)
    .flatMap((line, i) => (line.includes(first) ? [i + 1] : []))
    .slice(0, LISTED_PLACES);
  if (lines.length === 0) return `${advice} Its first line does not occur in the file either.`;
  return `${advice} Its first line (trimmed) occurs at line ${lines.join(", ")}; compare the lines around it.`;
}

function describeEdit(path: string, updated: string, edit: Edit): string {
  const lines = updated.split(/\r?\n/);
  if (lines.length > 1 && lines.at(-1) === "") lines.pop();
  const start = lineOf(updated, edit.index);
  const newLineCount = lineCount(edit.newString);
  const from = Math.max(1, start - SHOWN_CONTEXT_LINES);
  const to = Math.min(
    lines.length,
    start + Math.max(newLineCount, 1) - 1 + SHOWN_CONTEXT_LINES,
    from + SHOWN_MAX_LINES - 1,
  );
  const width = String(to).length;
  const shown = lines.slice(from - 1, to).map((line, i) => `${String(from + i).padStart(width)}| ${line}`);
  return [
    `Edited ${path}: replaced ${lineCount(edit.oldString)} line(s) at line ${start} with ${newLineCount} line(s). Lines ${from}-${to} now read:`,
    ...shown,
  ].join("\n");
}

const lineCount = (s: string): number => (s === "" ? 0 : s.split("\n").length);
