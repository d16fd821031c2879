/**
 * Hostile review (attack 44b, of ADR 0081): the expected-failure marker check reads the changed
 * files with one regex (`MARKER` in src/verify/expected-failure-markers.ts, used by
 * `markedSourceChanges` in src/lanes/iterate/lane/verification-checkout.ts and
 * `expectedFailureFindings` in src/verify/regression.ts). The regex only sees `.failing`/`.fails`
 * directly after the literal words it/test/describe/xit/fit, whitespace-separated. Plain, non-computed
 * JavaScript that the runners treat exactly like `it.failing` escapes it:
 *
 *   - jest:   `(it).failing("works", …)`            (parenthesised callee)
 *   - jest:   `it /* x *\/ .failing("works", …)`     (a comment between object and property)
 *   - jest:   `it.failing` written in an extensionless file (`test/clamp-cases`) that the clamp
 *             suite `require`s: `MARKED_SOURCE` only reads .js/.ts-like names, Node/jest load it
 *   - vitest: `import { it as t } from "vitest"; t.fails("works", …)`  (an import alias, the
 *             same as the very common `const myTest = test.extend({...}); myTest.fails(…)`)
 *
 * ADR 0081 only concedes names reached by computation (`it["fail" + "ing"]`, `Reflect.get`); these
 * are not computed. The coder fixes the seam, breaks `clamp` (src/math.js returns its input) and marks
 * `math > clamp > works` expected-to-fail: the runner reports it `passed` under its base identity,
 * regression says "no regressions", and the lane completes with `clamp` broken on the branch.
 *
 * Each case asserts the correct behaviour (not completed; regression fails); each failed before the
 * fix (stop 43: any `.failing`/`.fails` read counts, in every changed file, ADR 0081).
 * Run: DEVFLOW_LANE_PARALLEL=2 npx vitest run test/adversarial/review/expected-failure-marker-unseen-attack44b.test.ts
 */
import { describe, it } from "vitest";
import { ensureRunnerInstalled } from "../../reports/runner-fixture.js";
import { concurrencyLimit } from "../../support/concurrency-limit.js";
import { expectAttackRefused, slugLane } from "../../support/runner-lane.js";

const PRELUDE = `
import { readFileSync, writeFileSync } from "node:fs";
const read = (f) => readFileSync(f, "utf8");
const write = (f, s) => writeFileSync(f, s);
const edit = (f, from, to) => {
  const before = read(f);
  if (!before.includes(from)) throw new Error(f + ": " + from + " not found");
  write(f, before.replace(from, to));
};
edit("src/slug.js", ".replace(/ /g,", ".replace(/\\\\s+/g,");
edit("src/math.js", "return Math.min(Math.max(value, low), high);", "return value;");
`;

const JEST_CLAMP = 'it("works", () => assert.strictEqual(clamp(5, 0, 3), 3));';
const VITEST_CLAMP = 'it("works", () => expect(clamp(5, 0, 3)).toBe(3));';

const edits = (pairs: Array<[string, string]>) =>
  `${PRELUDE}\n${pairs
    .map(([from, to]) => `edit("test/math.test.js", ${JSON.stringify(from)}, ${JSON.stringify(to)});`)
    .join("\n")}\nconsole.log("Runs of whitespace become one dash.");`;

const CASES: Record<string, { runner: "jest" | "vitest"; coder: string }> = {
  "jest: (it).failing": {
    runner: "jest",
    coder: edits([[JEST_CLAMP, JEST_CLAMP.replace('it("works"', '(it).failing("works"')]]),
  },
  "jest: it /* comment */ .failing": {
    runner: "jest",
    coder: edits([[JEST_CLAMP, JEST_CLAMP.replace('it("works"', 'it /* x */ .failing("works"')]]),
  },
  // MARKED_SOURCE (expected-failure-markers.ts) reads only .js/.ts-like names; jest (and Node's
  // require) load an extensionless file as JavaScript.
  "jest: it.failing in an extensionless file the test requires": {
    runner: "jest",
    coder: `${edits([[JEST_CLAMP, 'require("./clamp-cases");']])}
write("test/clamp-cases", ${JSON.stringify(
      'const assert = require("node:assert");\nconst { clamp } = require("../src/math.js");\nit.failing("works", () => assert.strictEqual(clamp(5, 0, 3), 3));\n',
    )});`,
  },
  "vitest: an import alias, t.fails": {
    runner: "vitest",
    coder: edits([
      [
        'import { describe, expect, it } from "vitest";',
        'import { describe, expect, it, it as t } from "vitest";',
      ],
      [VITEST_CLAMP, VITEST_CLAMP.replace('it("works"', 't.fails("works"')],
    ]),
  },
};

const limited = concurrencyLimit(Number(process.env.DEVFLOW_LANE_PARALLEL ?? 3));

describe.concurrent("an expected-failure marker the regex does not see (attack 44b)", () => {
  for (const [name, { runner, coder }] of Object.entries(CASES)) {
    it(`${name} on the broken clamp test does not complete`, { timeout: 300_000 }, () =>
      limited(async () => {
        await ensureRunnerInstalled(runner);
        const run = await slugLane(runner, coder);
        await expectAttackRefused(run, {
          verifier: "regression",
          file: "src/math.js",
          broken: "return value;",
          result: "fail",
        });
      }),
    );
  }
});
