/**
 * Hostile review (attack 44b) of ADR 0081's marker regex (`MARKER` / `expectedFailureMarkers` /
 * `expectedFailureFindings` in src/verify/expected-failure-markers.ts). Each case asserts the
 * correct behaviour; cases 1 and 2 failed before the fix (stop 43: one linear pattern counting any
 * `.failing`/`.fails` read, in every changed file).
 *
 * 1. False completions (proven end to end in
 *    test/adversarial/review/expected-failure-marker-unseen-attack44b.test.ts): plain, non-computed
 *    JavaScript that jest/vitest treat exactly like `it.failing` / `it.fails` is not counted, because
 *    the regex wants `.failing` right after the literal words it/test/describe/xit/fit with only
 *    whitespace between: a parenthesised callee, a comment before the dot, an import alias, vitest's
 *    `test.extend` fixture object (a common vitest idiom, usually given its own name). ADR 0081 only
 *    concedes names reached by computation.
 * 2. Denial of service: the regex backtracks super-linearly on a long `it.it.it…` chain
 *    (`(?:\??\.\s*\w+\s*)*` before `\??\.\s*(?:failing|fails)` re-scans the chain from every `it`):
 *    120 KB takes ~19 s here, so a changed .js file under the 64 MiB read cap
 *    (`MARKER_READ_CAP_BYTES`, verification-checkout.ts) blocks devflow's own event loop in the
 *    verify node for days; no timeout or abort signal can fire while it runs.
 * 3. False rejection (low realism, named as such): a changed file that reads a `failing`/`fails`
 *    property of anything fails regression, e.g. a correct fix in a health check module
 *    `checks.filter((it) => it.failing)`. Decided (ADR 0081): kept, fail closed; the case below
 *    pins that the finding names the file, so the cause is plain to the user.
 * Run: npx vitest run src/verify/expected-failure-markers-attack44b.test.ts
 */
import { describe, expect, it } from "vitest";
import { expectedFailureFindings, expectedFailureMarkers } from "./expected-failure-markers.js";

describe("expected-failure markers the regex does not see (false completion)", () => {
  for (const [name, text] of Object.entries({
    "a parenthesised callee": '(it).failing("works", () => {});',
    "a comment before the dot": 'it /* x */ .failing("works", () => {});',
    "an import alias": 'import { it as t } from "vitest";\nt.fails("works", () => {});',
    "a test.extend fixture": 'const myTest = test.extend({});\nmyTest.fails("works", () => {});',
  }))
    it(`counts ${name}`, () => expect(expectedFailureMarkers(text)).toBeGreaterThan(0));
});

describe("the marker scan is linear (denial of service)", () => {
  it("reads a 120 KB `it.it.…` chain in well under 2 s (a 64 MiB one would never finish)", {
    timeout: 120_000,
  }, () => {
    const text = "it.".repeat(40_000);
    const start = Date.now();
    expectedFailureMarkers(text);
    expect(Date.now() - start).toBeLessThan(2_000);
  });
});

describe("non-test code reading a `failing` property (false rejection, low realism, kept)", () => {
  it("is a finding that names the file", () =>
    expect(
      expectedFailureFindings([
        {
          path: "src/health.js",
          now: "export const down = (checks) => checks.filter((it) => it.failing);\n",
          base: "export const down = (checks) => checks.filter((c) => c.down);\n",
        },
      ]),
    ).toEqual([
      "the attempt added 1 expected-failure marker(s) (jest's `.failing`, vitest's `.fails`) in src/health.js: a test so marked reports as passed when it fails, so its result cannot be compared with base",
    ]));
});
