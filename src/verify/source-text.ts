/**
 * Source text with its comments, and optionally its string literals, taken out: what the loader
 * readings (seam-helpers.ts, pytest-setup.ts) match words against, so that a comment or a test
 * title saying "eval" is no loader and a `#` or `//` inside a string hides no code after it
 * (review, stop 32). A small scanner, not a parser: whether a JavaScript `/` opens a regex literal
 * is told by what precedes it, and a case it tells wrong makes a reading miss or over-read the user's
 * own base code, never the coder's.
 */

export interface SourceViews {
  /** Comments removed (each replaced by a space), strings as they were. */
  withoutComments: string;
  /** Comments removed and every string literal emptied (its quotes kept: `""`). */
  codeOnly: string;
}

/**
 * JavaScript/TypeScript: `//` and `/* … *\/` comments; '…', "…" and `…` strings, whose `${…}`
 * expressions stay code (review, stop 32: a loader inside one was read as string); regex literals
 * (a `/` where an operand starts: after an operator, a bracket, a comma or a keyword such as
 * `return`), kept whole and emptied in the code view (review, stop 32: `/\/*$/` opened a
 * "comment" and ``/`/g`` a template, hiding the loader after them).
 */
export function jsSourceViews(text: string): SourceViews {
  return scanViews(text, /[/"'`]/g, (c, at, code) => {
    const next = text[at + 1];
    if (c === "/" && (next === "/" || next === "*")) {
      const end = next === "/" ? text.indexOf("\n", at) : text.indexOf("*/", at + 2);
      return { end: end < 0 ? text.length : next === "/" ? end : end + 2, code: " ", comment: true };
    }
    if (c === "/") {
      const end = operandStarts(code) ? regexEnd(text, at + 1) : -1;
      return end < 0 ? { end: at + 1, code: c } : { end, code: "/r/" };
    }
    if (c === "`") {
      // The expressions are code: read them with the same views (strings in them emptied).
      const { end, expressions } = templateEnd(text, at + 1);
      return { end, code: `\`\`${expressions.map((e) => ` ${jsSourceViews(e).codeOnly} `).join("")}` };
    }
    return { end: stringEnd(text, at + 1, c, true), code: c + c };
  });
}

/**
 * The two views, built by one walk: text up to the next `special` character is code; `step` says
 * where the token starting there ends, what the code view gets for it, and whether it is a comment
 * (dropped from both views) rather than a literal (kept whole in `withoutComments`).
 */
function scanViews(
  text: string,
  special: RegExp,
  step: (c: string, at: number, code: string[]) => { end: number; code: string; comment?: boolean },
): SourceViews {
  const kept: string[] = [];
  const code: string[] = [];
  let i = 0;
  while (i < text.length) {
    special.lastIndex = i;
    const found = special.exec(text);
    const at = found ? found.index : text.length;
    kept.push(text.slice(i, at));
    code.push(text.slice(i, at));
    if (!found) break;
    const token = step(found[0], at, code);
    kept.push(token.comment ? " " : text.slice(at, token.end));
    code.push(token.code);
    i = token.end;
  }
  return { withoutComments: kept.join(""), codeOnly: code.join("") };
}

/** Words after which a `/` starts a regex literal, not a division. */
const REGEX_AFTER_WORD =
  /(?:^|[^\w$.])(?:return|typeof|instanceof|in|of|new|delete|void|throw|case|do|else|yield|await)\s*$/;

/** Whether the code so far ends where an operand starts (so a `/` here opens a regex literal). */
function operandStarts(code: string[]): boolean {
  for (let k = code.length - 1; k >= 0; k--) {
    const piece = (code[k] as string).trimEnd();
    if (piece === "") continue;
    const last = piece[piece.length - 1] as string;
    if ("(,=:[!&|?{};+-*%<>~^".includes(last)) return true;
    return REGEX_AFTER_WORD.test(piece.slice(-20));
  }
  return true;
}

/** The index after a regex literal's closing `/` and flags; -1 when the line ends first (not a regex). */
function regexEnd(text: string, from: number): number {
  let inClass = false;
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (c === "\n") return -1;
    if (c === "\\") i += 1;
    else if (c === "[") inClass = true;
    else if (c === "]") inClass = false;
    else if (c === "/" && !inClass) {
      let end = i + 1;
      while (end < text.length && /[a-z]/i.test(text[end] as string)) end += 1;
      return end;
    }
  }
  return -1;
}

/** The index after a template literal's closing backtick, and the text of its `${…}` expressions. */
function templateEnd(text: string, from: number): { end: number; expressions: string[] } {
  const expressions: string[] = [];
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") i += 1;
    else if (c === "`") return { end: i + 1, expressions };
    else if (c === "$" && text[i + 1] === "{") {
      const close = expressionEnd(text, i + 2);
      expressions.push(text.slice(i + 2, close));
      i = close;
    }
  }
  return { end: text.length, expressions };
}

/** The index of the `}` closing an expression that starts at `from` (strings and nested templates skipped). */
function expressionEnd(text: string, from: number): number {
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    const c = text[i] as string;
    if (c === "{") depth += 1;
    else if (c === "}") {
      if (depth === 0) return i;
      depth -= 1;
    } else if (c === '"' || c === "'") i = stringEnd(text, i + 1, c, true) - 1;
    else if (c === "`") i = templateEnd(text, i + 1).end - 1;
  }
  return text.length;
}

/** Python: `#` comments; '…', "…", '''…''' and """…""" strings, with any prefix (r, b, f, u). */
export function pythonSourceViews(text: string): SourceViews {
  return scanViews(text, /[#"']/g, (c, at) => {
    if (c === "#") {
      const end = text.indexOf("\n", at);
      return { end: end < 0 ? text.length : end, code: " ", comment: true };
    }
    const triple = text.startsWith(c.repeat(3), at);
    return {
      end: triple ? tripleEnd(text, at + 3, c.repeat(3)) : stringEnd(text, at + 1, c, true),
      code: c + c,
    };
  });
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
