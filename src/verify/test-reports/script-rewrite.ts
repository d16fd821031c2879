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
 */
export function insertAfter(
  script: string,
  pattern: RegExp,
  flags: string,
  runnerLabel: string,
  conflicting?: RegExp,
): ScriptInsertion {
  const conflict = conflicting?.exec(script);
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

/** POSIX single-quote quoting for a path devflow chose. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
