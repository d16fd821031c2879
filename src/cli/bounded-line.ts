/** The longest progress or summary line when stderr is not a terminal (a terminal uses its width). */
export const DEFAULT_LINE_WIDTH = 160;
/** Summary values longer than this many wrapped lines end with a pointer to the file that has all of it. */
export const MAX_WRAPPED_LINES = 6;

/** A single line of at most `width` characters (a cut one ends with `…`): the live line, heartbeats. */
export function boundLine(text: string, width: number): string {
  const flat = text.replace(/\s*\n\s*/g, " ");
  if (flat.length <= width) return flat;
  return `${flat.slice(0, Math.max(1, width - 1)).trimEnd()}…`;
}

/**
 * Word-wraps `text` to lines of at most `width` characters after `indent`; past `maxLines` the
 * rest is replaced by a line saying where the whole text is.
 */
export function wrapText(
  text: string,
  width: number,
  indent: string,
  wholeAt: string | null,
  maxLines = MAX_WRAPPED_LINES,
): string[] {
  const room = Math.max(20, width - indent.length);
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    for (let rest = word; rest.length > 0; ) {
      const gap = line ? 1 : 0;
      if (line.length + gap + rest.length <= room) {
        line += (gap ? " " : "") + rest;
        rest = "";
      } else if (line) {
        lines.push(line);
        line = "";
      } else {
        lines.push(rest.slice(0, room));
        rest = rest.slice(room);
      }
    }
  }
  if (line) lines.push(line);
  if (lines.length <= maxLines) return lines;
  return [...lines.slice(0, maxLines), `… (${wholeAt ? `all of it: ${wholeAt}` : "cut"})`];
}
