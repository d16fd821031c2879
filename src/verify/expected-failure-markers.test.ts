import { describe, expect, it } from "vitest";
import { expectedFailureFindings, expectedFailureMarkers } from "./expected-failure-markers.js";

/**
 * Expected-failure markers (ADR 0081, review attack44): jest's `.failing` and vitest's `.fails`
 * make a failing test report as passed under its own identity. A changed file that gains one is a
 * regression finding. The lane test is test/adversarial/review/regression-hides-a-broken-test-attack44.test.ts.
 */
describe("expectedFailureMarkers", () => {
  it("counts the spellings jest and vitest accept", () => {
    for (const text of [
      'it.failing("works", () => {});',
      'test.failing("works", () => {});',
      'it.fails("works", () => {});',
      'test.concurrent.failing("works", async () => {});',
      'it.only.fails.each([1])("works %i", () => {});',
      'describe.fails("math", () => {});',
      'test . failing ("works", () => {});',
      'it?.failing("works", () => {});',
      'it["failing"]("works", () => {});',
      "test['fails']('works', () => {});",
      "const works = it.failing;",
    ])
      expect(expectedFailureMarkers(text), text).toBe(1);
  });

  it("does not count the words where no property is read", () => {
    for (const text of [
      'it("is failing on purpose", () => {});',
      "const failing = true; it(failing ? 'a' : 'b', () => {});",
      "export function fails(x) { return !x; }",
    ])
      expect(expectedFailureMarkers(text), text).toBe(0);
  });

  it("counts any `.failing`/`.fails` read, whatever it is read from (fail closed, ADR 0081)", () => {
    // Which object is a test function cannot be told from the text (an alias, a fixture): a
    // correct change that adds such a read to non-test code fails too, and the finding names it.
    expect(expectedFailureMarkers("checks.filter((c) => c.failing)")).toBe(1);
    expect(expectedFailureMarkers("expect(result.fails).toBe(0);")).toBe(1);
  });
});

describe("expectedFailureFindings", () => {
  it("is a finding only where the attempt has more markers than base", () => {
    expect(
      expectedFailureFindings([
        { path: "test/a.test.js", now: 'it.failing("a", f);', base: 'it("a", f);' },
        { path: "test/b.test.js", now: 'it.failing("b", f);', base: 'it.failing("b", f);' },
        { path: "test/c.test.js", now: 'it.fails("c", f);', base: null },
        { path: "test/d.test.js", now: 'it("d", f);', base: 'it.failing("d", f);' },
      ]),
    ).toEqual([
      "the attempt added 1 expected-failure marker(s) (jest's `.failing`, vitest's `.fails`) in test/a.test.js: a test so marked reports as passed when it fails, so its result cannot be compared with base",
      "the attempt added 1 expected-failure marker(s) (jest's `.failing`, vitest's `.fails`) in test/c.test.js: a test so marked reports as passed when it fails, so its result cannot be compared with base",
    ]);
  });

  it("a file too large to read is a finding of its own", () => {
    expect(
      expectedFailureFindings([
        { path: "test/big.test.js", now: null, base: null, tooLarge: 64 * 1024 * 1024 },
      ]),
    ).toEqual([
      "the attempt changed test/big.test.js, larger than the 64 MiB devflow reads for expected-failure markers (jest's `.failing`, vitest's `.fails`), so it could not be checked",
    ]);
  });
});
