/**
 * Which repository paths are test code: what the seam's verdict rests on and a coder must not edit
 * (ADR 0019). A path in a test folder, or a file named like a test.
 */
const TEST_DIRS = new Set([
  "test",
  "tests",
  "__tests__",
  "spec",
  "specs",
  "fixtures",
  "__fixtures__",
  "testdata",
  "e2e",
]);

/** A path in a test folder, or named like a test (`x.test.js`, `x.spec.ts`, `test_x.py`, `x_test.go`). */
export function isTestPath(file: string): boolean {
  const parts = file.split("/");
  const name = parts.at(-1) ?? "";
  return (
    parts.slice(0, -1).some((dir) => TEST_DIRS.has(dir.toLowerCase())) ||
    /\.(test|spec)\.[^.]+$/i.test(name) ||
    /^test_.*\.py$/.test(name) ||
    /_test\.(go|py)$/.test(name)
  );
}
