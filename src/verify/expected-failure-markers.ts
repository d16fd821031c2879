/**
 * Expected-failure markers (ADR 0081): jest's `test.failing`/`it.failing` and vitest's
 * `test.fails`/`it.fails` make a test that fails report as passed, under the very same identity,
 * and neither runner's report says so (jest 29.7, vitest 4.1). A change that breaks a test and
 * marks it so passes regression by name (review attack44), the way a skip would if a skip were not
 * reported. So a file the attempt changed (any name: jest loads an extensionless file a test
 * requires) that holds more such markers than on base is a regression finding. Read from the
 * source, so a marker reached by a computed name (`it["fail" + "ing"]`) or by destructuring
 * (`const { failing } = it`) is not seen; the critic reads such a change.
 */

/**
 * A `.failing` / `.fails` property read (`it.failing`, `(it).failing`, `t.fails` on an alias or a
 * `test.extend` fixture, a comment between `it` and `.failing`, `it?.fails`) or a literal index
 * (`it["failing"]`), whatever it is read from: which object is a test function cannot be told from
 * the text, so any such read counts (fail closed, ADR 0081). Linear: no nested repetition (a hostile
 * review's `it.it.it…` chain made the first version backtrack for seconds per 100 KB).
 */
const MARKER = /\??\.\s*(?:failing|fails)\b|\[\s*(["'`])(?:failing|fails)\1\s*\]/g;

/** How many expected-failure markers `text` holds. */
export function expectedFailureMarkers(text: string): number {
  return text.match(MARKER)?.length ?? 0;
}

/** One changed source file: its text now (in the attempt) and on base (null where absent). */
export interface MarkedSourceChange {
  path: string;
  now: string | null;
  base: string | null;
  /** Set (to the cap in bytes) when the file was too large to read: a finding of its own. */
  tooLarge?: number;
}

/** A finding per file that holds more expected-failure markers now than on base. */
export function expectedFailureFindings(changes: readonly MarkedSourceChange[]): string[] {
  const findings: string[] = [];
  for (const { path, now, base, tooLarge } of changes) {
    if (tooLarge !== undefined) {
      findings.push(
        `the attempt changed ${path}, larger than the ${tooLarge / (1024 * 1024)} MiB devflow reads for expected-failure markers (jest's \`.failing\`, vitest's \`.fails\`), so it could not be checked`,
      );
      continue;
    }
    const added = expectedFailureMarkers(now ?? "") - expectedFailureMarkers(base ?? "");
    if (added > 0)
      findings.push(
        `the attempt added ${added} expected-failure marker(s) (jest's \`.failing\`, vitest's \`.fails\`) in ${path}: a test so marked reports as passed when it fails, so its result cannot be compared with base`,
      );
  }
  return findings;
}
