/**
 * What a terminal would show after a byte stream: a test oracle for the live progress line, which
 * redraws itself with cursor movement (log-update). It knows only what that output uses: text,
 * CR/LF, cursor up/down/column (`ESC[nA`, `ESC[nB`, `ESC[nG`), erase line (`ESC[2K`, `ESC[K`);
 * colours and private modes (`ESC[...m`, `ESC[?...h/l`) are dropped. The screen never scrolls off:
 * every line written stays in `lines`.
 */
export function screenOf(stream: string): string[] {
  const lines: string[] = [""];
  let row = 0;
  let col = 0;
  const put = (ch: string) => {
    const line = (lines[row] ?? "").padEnd(col, " ");
    lines[row] = line.slice(0, col) + ch + line.slice(col + 1);
    col++;
  };
  // biome-ignore lint/suspicious/noControlCharactersInRegex: parsing terminal escapes is the point
  const token = /\u001b\[(\??)([0-9;]*)([A-Za-z])|\r|\n|[^\u001b\r\n]/gu;
  for (const m of stream.matchAll(token)) {
    const [all, priv, arg, op] = m;
    if (all === "\r") col = 0;
    else if (all === "\n") {
      row++;
      if (lines.length <= row) lines.push("");
    } else if (op === undefined) put(all);
    else if (priv) continue;
    else {
      const n = Number(arg || "1");
      if (op === "A") row = Math.max(0, row - n);
      else if (op === "B") {
        row += n;
        while (lines.length <= row) lines.push("");
      } else if (op === "G") col = Math.max(0, n - 1);
      else if (op === "K") lines[row] = arg === "2" ? "" : (lines[row] ?? "").slice(0, col);
    }
  }
  return lines.map((l) => l.trimEnd());
}
