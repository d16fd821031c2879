/**
 * Adds flags right after a runner's invocation inside a shell command line, so everything around
 * it (other commands, `&&` chains, the runner's own arguments and config) stays as the project
 * wrote it. Flags go directly after the binary because trailing arguments may belong to a later
 * command in the chain.
 */
export type ScriptInsertion = { ok: true; command: string } | { ok: false; reason: string };

/** A command word: at the start, or after whitespace or a shell separator; optionally via npx. */
const WORD_START = String.raw`(?:^|(?<=[\s;&|(]))(?:npx\s+(?:--no-install\s+)?)?`;

/** Matches each invocation of `binary` in `script`, e.g. binaryPattern("mocha"). */
export function binaryPattern(binary: string): RegExp {
  return new RegExp(`${WORD_START}(?:\\./node_modules/\\.bin/)?${binary}(?=\\s|$|[;&|)])`, "g");
}

export function countInvocations(script: string, pattern: RegExp): number {
  return [...script.matchAll(new RegExp(pattern.source, "g"))].length;
}

/**
 * `conflicting`: flags of the project's own that would fight devflow's (a second `--reporter`), so
 * the report could silently not be written; such a script is refused rather than half-rewritten.
 * Looked for in the whole script, or with `conflictsIn: "own_arguments"` only in the runner's own
 * arguments: in `nyc --reporter=lcov mocha` the flag is nyc's, and refusing it sent a very common
 * mocha script to the console, whose lines name tests by their last title (stop 46).
 */
export function insertAfter(
  script: string,
  pattern: RegExp,
  flags: string,
  runnerLabel: string,
  conflicting?: RegExp,
  conflictsIn: "script" | "own_arguments" = "script",
): ScriptInsertion {
  const span = conflictsIn === "own_arguments" ? argumentSpan(script, pattern, runnerLabel) : null;
  // To the end of the command, past redirections: `mocha > out.txt --reporter dot` is mocha's flag
  // (review, stop 46, attack 50).
  const searched = span?.ok ? script.slice(span.start, endOfArguments(script, span.start, ";&|)\n")) : script;
  const conflict = conflicting?.exec(searched);
  if (conflict)
    return { ok: false, reason: `the test script already sets \`${conflict[0].trim()}\` for ${runnerLabel}` };
  const matches = [...script.matchAll(new RegExp(pattern.source, "g"))];
  if (matches.length === 0) return { ok: false, reason: `the test script does not invoke ${runnerLabel}` };
  if (matches.length > 1)
    return {
      ok: false,
      reason: `the test script invokes ${runnerLabel} ${matches.length} times; one report file cannot hold both runs`,
    };
  const match = matches[0] as RegExpMatchArray;
  const end = (match.index ?? 0) + match[0].length;
  return { ok: true, command: `${script.slice(0, end)} ${flags}${script.slice(end)}` };
}

/**
 * A runner option (`name`, a regex source) with its value, `--opt=value` or `--opt value`, the value
 * bare or quoted, with the whitespace before it: for `withoutArguments`.
 */
export function optionWithValue(name: string): RegExp {
  const value = String.raw`(?:'[^']*'|"[^"]*"|[^\s"';&|)]+)`;
  return new RegExp(String.raw`\s(?:${name})(?:=${value}|\s+(?!-)${value})(?=[\s;&|)]|$)`);
}

/** POSIX single-quote quoting for a path devflow chose. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * Adds arguments at the end of a runner's own argument list inside a shell command line: after its
 * last argument, before the first unquoted shell separator or redirection (`&&`, `;`, `|`, `)`,
 * `>`), so a later command in a chain keeps its arguments. Used to append test files to one
 * invocation (the seam canary); refused when the runner is invoked other than exactly once.
 */
export function appendArguments(
  script: string,
  pattern: RegExp,
  args: readonly string[],
  runnerLabel: string,
): ScriptInsertion {
  const span = argumentSpan(script, pattern, runnerLabel);
  if (!span.ok) return span;
  const head = script.slice(0, span.end).trimEnd();
  return { ok: true, command: `${head} ${args.join(" ")}${script.slice(head.length)}` };
}

/**
 * Takes each match of `flag` (with the whitespace before it) out of a runner's own argument list
 * (from its invocation to where `appendArguments` would add), so the copy devflow adds is the only
 * one: vitest refuses `--bail` twice, jest takes the last. Refused unless the runner is invoked
 * exactly once.
 */
export function withoutArguments(
  script: string,
  pattern: RegExp,
  flag: RegExp,
  runnerLabel: string,
): ScriptInsertion {
  const span = argumentSpan(script, pattern, runnerLabel);
  if (!span.ok) return span;
  const args = script.slice(span.start, span.end).replace(new RegExp(flag.source, "g"), "");
  return { ok: true, command: `${script.slice(0, span.start)}${args}${script.slice(span.end)}` };
}

/** `withoutArguments`'s command, or `script` itself when it cannot say (the runner is not invoked exactly once). */
export function withoutOwn(script: string, pattern: RegExp, flag: RegExp, runnerLabel: string): string {
  const without = withoutArguments(script, pattern, flag, runnerLabel);
  return without.ok ? without.command : script;
}

/** Where the one invocation's own arguments are: from the end of its match to `endOfArguments`. */
function argumentSpan(
  script: string,
  pattern: RegExp,
  runnerLabel: string,
): { ok: true; start: number; end: number } | { ok: false; reason: string } {
  const matches = [...script.matchAll(new RegExp(pattern.source, "g"))];
  if (matches.length !== 1)
    return {
      ok: false,
      reason:
        matches.length === 0
          ? `the script does not invoke ${runnerLabel}`
          : `the script invokes ${runnerLabel} ${matches.length} times`,
    };
  const match = matches[0] as RegExpMatchArray;
  const start = (match.index ?? 0) + match[0].length;
  return { ok: true, start, end: endOfArguments(script, start) };
}

/**
 * Index of the first unquoted separator or redirection at or after `from` (script length if none);
 * `stops` are the characters that end the arguments.
 */
function endOfArguments(script: string, from: number, stops = ";&|)\n<>"): number {
  let quote: "'" | '"' | null = null;
  for (let i = from; i < script.length; i++) {
    const c = script[i] as string;
    if (quote) {
      if (c === quote) quote = null;
      else if (c === "\\" && quote === '"') i++;
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    else if (c === "\\") i++;
    // A command substitution is one argument, whatever it holds: its `)` does not end the runner's
    // arguments (review, stop 44: `mocha $(find test -name '*.test.js')` got `--no-bail` inside
    // the `find`, which then found nothing, and the nested test files ran on neither side).
    else if (c === "$" && script[i + 1] === "(") i = closingParen(script, i + 1);
    else if (c === "`") {
      const close = script.indexOf("`", i + 1);
      i = close === -1 ? script.length : close;
    } else if (stops.includes(c)) {
      // A file-descriptor number right before a redirection (`2>&1`) belongs to the redirection.
      let start = i;
      if (c === "<" || c === ">") while (start > from && /\d/.test(script[start - 1] as string)) start--;
      return start;
    }
  }
  return script.length;
}

/** The index of the `)` closing the `(` at `open` (quotes and nested parentheses skipped), or the end. */
function closingParen(script: string, open: number): number {
  let depth = 0;
  let quote: "'" | '"' | null = null;
  for (let i = open; i < script.length; i++) {
    const c = script[i] as string;
    if (quote) {
      if (c === quote) quote = null;
      else if (c === "\\" && quote === '"') i++;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "\\") i++;
    else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i;
  }
  return script.length;
}
