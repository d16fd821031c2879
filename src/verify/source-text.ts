/**
 * Source text with its comments, and optionally its string literals, taken out: what the loader
 * readings (seam-helpers.ts, pytest-setup.ts) match words against, so that a comment or a test
 * title saying "eval" is no loader and a `#` or `//` inside a string hides no code after it
 * (review, stop 32). A small scanner, not a parser: JavaScript regex literals are read as code (a
 * quote inside one can swallow text up to the next quote of that kind), which only makes a reading
 * miss or over-read the user's own base code, never the coder's.
 */

export interface SourceViews {
  /** Comments removed (each replaced by a space), strings as they were. */
  withoutComments: string;
  /** Comments removed and every string literal emptied (its quotes kept: `""`). */
  codeOnly: string;
}

/** JavaScript/TypeScript: `//` and `/* … *\/` comments; '…', "…" and `…` strings (a template's `${…}` read as string). */
export function jsSourceViews(text: string): SourceViews {
  const kept: string[] = [];
  const code: string[] = [];
  const special = /[/"'`]/g;
  let i = 0;
  while (i < text.length) {
    special.lastIndex = i;
    const found = special.exec(text);
    const at = found ? found.index : text.length;
    kept.push(text.slice(i, at));
    code.push(text.slice(i, at));
    if (!found) break;
    const c = found[0];
    const next = text[at + 1];
    if (c === "/" && (next === "/" || next === "*")) {
      const end = next === "/" ? text.indexOf("\n", at) : text.indexOf("*/", at + 2);
      i = end < 0 ? text.length : next === "/" ? end : end + 2;
      kept.push(" ");
      code.push(" ");
    } else if (c === "/") {
      kept.push(c);
      code.push(c);
      i = at + 1;
    } else {
      i = stringEnd(text, at + 1, c, c !== "`");
      kept.push(text.slice(at, i));
      code.push(c + c);
    }
  }
  return { withoutComments: kept.join(""), codeOnly: code.join("") };
}

/** Python: `#` comments; '…', "…", '''…''' and """…""" strings, with any prefix (r, b, f, u). */
export function pythonSourceViews(text: string): SourceViews {
  const kept: string[] = [];
  const code: string[] = [];
  const special = /[#"']/g;
  let i = 0;
  while (i < text.length) {
    special.lastIndex = i;
    const found = special.exec(text);
    const at = found ? found.index : text.length;
    kept.push(text.slice(i, at));
    code.push(text.slice(i, at));
    if (!found) break;
    const c = found[0];
    if (c === "#") {
      const end = text.indexOf("\n", at);
      i = end < 0 ? text.length : end;
      kept.push(" ");
      code.push(" ");
    } else {
      const triple = text.startsWith(c.repeat(3), at);
      i = triple ? tripleEnd(text, at + 3, c.repeat(3)) : stringEnd(text, at + 1, c, true);
      kept.push(text.slice(at, i));
      code.push(c + c);
    }
  }
  return { withoutComments: kept.join(""), codeOnly: code.join("") };
}

/** The index after the closing `quote` (a backslash escapes the next character); a single-line string also ends at a newline. */
function stringEnd(text: string, from: number, quote: string, singleLine: boolean): number {
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") i += 1;
    else if (c === quote) return i + 1;
    else if (singleLine && c === "\n") return i;
  }
  return text.length;
}

function tripleEnd(text: string, from: number, quote: string): number {
  for (let i = from; i < text.length; i++) {
    if (text[i] === "\\") i += 1;
    else if (text.startsWith(quote, i)) return i + 3;
  }
  return text.length;
}
