/**
 * Regression (stop 30): a seam command that runs more than the seam's own files loads the others
 * into the same process on mocha, tape and pytest, and their module-level code runs first when
 * they sort first. A coder that left `src/slug.js` alone and added `test/aa.test.js` replacing
 * `require("../src/slug.js").slugify` made the pinned test pass (`npx mocha 'test/**\/*.test.js'`):
 * the seam's files were unchanged, the canary failed as required (assertions were intact), and a
 * lenient critic let it complete (measured on the real lane). Same with pytest and a new
 * `tests/test_aa_cases.py` (pytest-conftest-fakes-the-seam.test.ts). Fix: `sharedProcessExposure`
 * (src/verify/seam-shared-process.ts, ADR 0019 amendment 5): when such a run loaded other test
 * files, test code the attempt changed besides the seam's makes the seam red, with the reason.
 * Mutation: the check removed from seam.ts → mocha and tape complete (red).
 *
 * Real runners (installed once per machine), real repos, the real lane with `command:` coders.
 */
import { describe, expect, it } from "vitest";
import { ensureRunnerInstalled } from "../reports/runner-fixture.js";
import { concurrencyLimit } from "../support/concurrency-limit.js";
import { attemptEnvelope, slugLane, writingCoder } from "../support/runner-lane.js";

const limited = concurrencyLimit(Number(process.env.DEVFLOW_LANE_PARALLEL ?? 3));

const PATCHING_TEST_FILE = (register: string) => ({
  "test/aa.test.js": [
    'require("../src/slug.js").slugify = (t) => t.trim().toLowerCase().replace(/\\s+/g, "-");',
    register,
  ],
});
const REGISTER = { mocha: 'it("aa", () => {});', tape: 'require("tape")("aa", (t) => t.end());' } as const;
const WHOLE_SUITE = { mocha: "npx mocha 'test/**/*.test.js'", tape: "npx tape 'test/**/*.test.js'" } as const;

describe.concurrent("test code sharing the seam's process is the seam's evidence", () => {
  for (const runner of ["mocha", "tape"] as const)
    it(
      `${runner}: a new test file that sorts first and patches the code does not complete`,
      () =>
        limited(async () => {
          await ensureRunnerInstalled(runner);
          const run = await slugLane(runner, writingCoder(PATCHING_TEST_FILE(REGISTER[runner])), {
            seam: WHOLE_SUITE[runner],
          });
          expect(run.error).toBeNull();
          const record = await run.store.read("iterator_run");
          expect(record?.terminal?.verdict).toBe("exhausted");
          const seam = await attemptEnvelope(run, "seam");
          expect(seam?.overall_result).toBe("fail");
          expect(seam?.summary).toContain(
            "the attempt changed test code besides the seam's files (test/aa.test.js)",
          );
        }),
      300_000,
    );

  it(
    "mocha: the correct fix completes on a seam running the whole suite",
    () =>
      limited(async () => {
        await ensureRunnerInstalled("mocha");
        const run = await slugLane("mocha", writingCoder({}, true), { seam: WHOLE_SUITE.mocha });
        expect(run.error).toBeNull();
        const record = await run.store.read("iterator_run");
        expect(record?.terminal?.verdict, run.result?.terminal.reason).toBe("completed");
      }),
    300_000,
  );

  // The rule's reach: a seam naming its own file loads nothing else, so test code added elsewhere
  // (the coder's own new tests) is no concern of the seam's.
  it(
    "mocha: the correct fix with a new test file completes on a seam naming its file",
    () =>
      limited(async () => {
        await ensureRunnerInstalled("mocha");
        const run = await slugLane(
          "mocha",
          writingCoder(
            {
              "test/slug-more.test.js": [
                'const assert = require("node:assert");',
                'const { slugify } = require("../src/slug.js");',
                'it("collapses tabs", () => assert.strictEqual(slugify("a\\tb"), "a-b"));',
              ],
            },
            true,
          ),
        );
        expect(run.error).toBeNull();
        const record = await run.store.read("iterator_run");
        expect(record?.terminal?.verdict, run.result?.terminal.reason).toBe("completed");
      }),
    300_000,
  );
});
