/**
 * Splits a Markdown ticket into its YAML frontmatter and its body. The frontmatter is the block
 * between a first line of `---` and the next line of `---` (or `...`); CRLF line ends are read as
 * LF, so a ticket written on Windows parses the same (junco's CRLF pain, reference §4).
 */
export interface SplitTicket {
  yaml: string;
  body: string;
  /** 1-based line of the body's first line in the file: verification findings name file lines. */
  bodyLine: number;
}

export function splitFrontmatter(text: string): SplitTicket | null {
  const lines = text
    .replace(/^\uFEFF/, "")
    .replace(/\r\n?/g, "\n")
    .split("\n");
  if (lines[0]?.trimEnd() !== "---") return null;
  const end = lines.findIndex((line, index) => index > 0 && /^(---|\.\.\.)\s*$/.test(line));
  if (end === -1) return null;
  return {
    yaml: lines.slice(1, end).join("\n"),
    body: lines.slice(end + 1).join("\n"),
    bodyLine: end + 2,
  };
}
