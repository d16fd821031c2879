/**
 * Whether pytest's own test selection (`-k EXPR`, `-m EXPR`, from the seam command or the config's
 * `addopts`) keeps devflow's seam canary. The canary has no markers and a name devflow chose, so
 * for most expressions the answer is known: `-m "not slow"` and `-k "not network"` keep it,
 * `-m slow` and `-k spaces` drop it. Before (stop 30), any `-k`/`-m` ran the seam without a canary
 * (ADR 0028 amendment), which left the seam's report unchecked on projects that deselect slow or
 * networked tests in `addopts`, a common pytest setup.
 *
 * The expression grammar is pytest's (`_pytest/mark/expression.py`): `or`, `and`, `not`,
 * parentheses and identifiers, an identifier optionally followed by keyword arguments (`-m`
 * only). `-k` matches an identifier case-insensitively as a substring of the names of the item and
 * its parents (and its markers: the canary has none); `-m` matches marker names, of which the
 * canary has none. The canary's own names are its function and its module file; its folders are
 * left out on purpose: pytest matches some of them and not others (not its rootdir's, review stop
 * 31), and they are the seam's own tests' folders too, which were selected (named failing) on base
 * under the same expression, so `-k "not <folder>"` cannot hold there, and `-k <folder>` then runs
 * without a canary (weaker, never a false rejection). Anything that does not parse is "not
 * known": the caller runs without a canary.
 */
export interface PytestSelection {
  flag: "-k" | "-m";
  expression: string;
}

/** The `-k`/`-m` options among pytest's arguments (command-line words, or `addopts`' text). */
export function pytestSelections(args: string): PytestSelection[] {
  const words = shellWords(args);
  const out: PytestSelection[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i] ?? "";
    const long = /^--keyword(?:=(.*))?$/s.exec(word);
    // Short flags combine (`-qk spaces`, `-vvm slow`): those before `k`/`m` take no value.
    const short = /^-[qvsxl]*([km])(.*)$/s.exec(word);
    if (long) {
      const value = long[1] ?? words[++i];
      if (value !== undefined) out.push({ flag: "-k", expression: value });
    } else if (short) {
      const inline = (short[2] ?? "").replace(/^=/, "");
      const value = inline !== "" ? inline : words[++i];
      if (value !== undefined) out.push({ flag: short[1] === "k" ? "-k" : "-m", expression: value });
    }
  }
  return out;
}

/**
 * True when every selection keeps an item with no markers whose own names (function, module file,
 * folders up to the repository root) are `names`; false when one drops it; null when an
 * expression does not parse.
 */
export function selectionsKeep(
  selections: readonly PytestSelection[],
  names: readonly string[],
): boolean | null {
  const known = names.map((n) => n.toLowerCase());
  for (const { flag, expression } of selections) {
    const tree = parseExpression(expression);
    if (tree === null) return null;
    if (flag === "-m") {
      if (!evaluate(tree, () => false)) return false;
      continue;
    }
    if (!evaluate(tree, (ident) => known.some((n) => n.includes(ident.toLowerCase())))) return false;
  }
  return true;
}

type Expression =
  | { kind: "ident"; name: string }
  | { kind: "not"; of: Expression }
  | { kind: "and" | "or"; left: Expression; right: Expression };

function evaluate(e: Expression, value: (ident: string) => boolean): boolean {
  switch (e.kind) {
    case "ident":
      return value(e.name);
    case "not":
      return !evaluate(e.of, value);
    case "and":
      return evaluate(e.left, value) && evaluate(e.right, value);
    case "or":
      return evaluate(e.left, value) || evaluate(e.right, value);
  }
}

/** pytest's tokens: parentheses, and identifiers of `\w:+-.[]\/` characters (`or`/`and`/`not` are keywords). */
const TOKEN = /\s*(\(|\)|[\w:+\-.[\]\\/]+(?:\((?:[^()"']|"[^"]*"|'[^']*')*\))?)/y;

function parseExpression(expression: string): Expression | null {
  // `not(x)`: a keyword before a parenthesis is the keyword, not a marker with arguments (pytest's
  // lexer ends an identifier at `(`; review, stop 31).
  const text = expression.replace(/(?<![\w:+\-.[\]\\/])(not|and|or)\(/g, "$1 (");
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  let at = 0;
  for (;;) {
    if (/^\s*$/.test(text.slice(at))) break;
    TOKEN.lastIndex = at;
    const m = TOKEN.exec(text);
    if (!m) return null;
    tokens.push(m[1] ?? "");
    at = TOKEN.lastIndex;
  }
  let i = 0;
  const expr = (): Expression | null => {
    let left = and();
    while (left && tokens[i] === "or") {
      i++;
      const right = and();
      left = right ? { kind: "or", left, right } : null;
    }
    return left;
  };
  const and = (): Expression | null => {
    let left = not();
    while (left && tokens[i] === "and") {
      i++;
      const right = not();
      left = right ? { kind: "and", left, right } : null;
    }
    return left;
  };
  const not = (): Expression | null => {
    const token = tokens[i];
    if (token === "not") {
      i++;
      const of = not();
      return of ? { kind: "not", of } : null;
    }
    if (token === "(") {
      i++;
      const inner = expr();
      if (!inner || tokens[i] !== ")") return null;
      i++;
      return inner;
    }
    if (token === undefined || token === ")" || token === "or" || token === "and") return null;
    i++;
    // A marker with keyword arguments (`slow(reason="x")`) is matched by its name (the canary has none).
    return { kind: "ident", name: token.replace(/\(.*\)$/s, "") };
  };
  const tree = tokens.length === 0 ? null : expr();
  return tree && i === tokens.length ? tree : null;
}

/** Words as a POSIX shell splits them: whitespace separates, quotes group (and are removed). */
function shellWords(text: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] ?? "";
    if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else if (c === "'" || c === '"') {
      const end = text.indexOf(c, i + 1);
      const stop = end < 0 ? text.length : end;
      word = (word ?? "") + text.slice(i + 1, stop);
      i = stop;
    } else if (c === "\\" && i + 1 < text.length) {
      word = (word ?? "") + (text[++i] ?? "");
    } else word = (word ?? "") + c;
  }
  if (word !== null) words.push(word);
  return words;
}
