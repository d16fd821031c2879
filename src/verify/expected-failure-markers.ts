/**
 * Expected-failure markers (ADR 0081): jest's `test.failing`/`it.failing` and vitest's
 * `test.fails`/`it.fails` make a test that fails report as passed, under the very same identity,
 * and neither runner's report says so (jest 29.7, vitest 4.1). A change that breaks a test and
 * marks it so passes regression by name (review attack44), the way a skip would if a skip were not
 * reported. So a JavaScript or TypeScript file the attempt changed that holds more such markers
 * than on base is a regression finding. Read from the source, so a marker reached by a computed
 * name (`it["fail" + "ing"]`) is not seen; the critic reads such a change.
 */

/** Source files a JavaScript test runner loads: only these can mark a test. */
export const MARKED_SOURCE = /\.(?:[cm]?[jt]sx?)$/;

/**
 * `.failing` / `.fails` reached from a test function (`it`, `test`, `describe`, and chains such as
 * `test.concurrent.failing`, `it.only.fails.each`), or by a literal index (`it["failing"]`).
 */
const MARKER =
  /\b(?:it|test|describe|xit|fit)\s*(?:\??\.\s*\w+\s*)*\??\.\s*(?:failing|fails)\b|\[\s*(["'`])(?:failing|fails)\1\s*\]/g;

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
