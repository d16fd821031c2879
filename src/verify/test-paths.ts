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
  // Test support kept beside the program (jest's mocks, Angular's `src/testing`, `test-utils`).
  "__mocks__",
  "__snapshots__",
  "testing",
  "test-utils",
  "test_utils",
  "testutils",
  "test-helpers",
  "test_helpers",
]);

/**
 * A path in a test folder, or named like a test (`x.test.js`, `x.spec.ts`, `test_x.py`, `x_test.go`)
 * or like test support (`jest.setup.js`, `setupTests.ts`, `db.mock.ts`, `conftest.py`).
 */
export function isTestPath(file: string): boolean {
  const parts = file.split("/");
  const name = parts.at(-1) ?? "";
  return (
    parts.slice(0, -1).some((dir) => TEST_DIRS.has(dir.toLowerCase())) ||
    /\.(test|spec)\.[^.]+$/i.test(name) ||
    /^test_.*\.py$/.test(name) ||
    // Setup files, mocks and fixtures named as such (`jest.setup.js`, `setupTests.ts`, `db.mock.ts`).
    // (`app.setup.ts` is not: a program's own setup may be what a fix changes.)
    /\.(mock|mocks|fixture|fixtures)\.[^.]+$/i.test(name) ||
    /^(jest|vitest|mocha|ava|karma)\.setup\.[^.]+$/.test(name) ||
    /^(setupTests|test-setup|test_setup|conftest)\.[^.]+$/.test(name) ||
    /_test\.(go|py)$/.test(name)
  );
}
