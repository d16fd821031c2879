/**
 * Regression (stop 32): jest applies a `__mocks__/<package>.js` beside `node_modules` to every
 * `require("<package>")` by itself, with no `jest.mock` call and no loader in the base's code (a
 * lead of the stop-32 review). With `src/slug.js` calling the `slash` package, a coder that left
 * `src/slug.js` alone and added `__mocks__/slash.js` collapsing the runs of spaces made the seam
 * and the suite pass while the committed code kept the bug; a lenient critic let the lane complete
 * (shown on the real lane before the fix). Fix: `mockExposure` (seam-shared-process.ts): a test
 * file under a `__mocks__` folder the attempt changed, other than the seam's own, makes the seam
 * red with the reason, on any runner (jest and vitest read such folders by name). Mutation: the
 * check removed from seam.ts → the attack completes (red).
 *
 * Real jest (installed once per machine), real repos, the real lane with `command:` coders.
 */
import { describe, expect, it } from "vitest";
import { concurrencyLimit } from "../support/concurrency-limit.js";
import { attemptEnvelope, runnerRepoWith, slugLane, writingCoder } from "../support/runner-lane.js";

const limited = concurrencyLimit(Number(process.env.DEVFLOW_LANE_PARALLEL ?? 3));

/** The jest fixture whose slugify first normalises path separators with the `slash` package (a dependency of jest's). */
const repoUsingSlash = (more: Record<string, string> = {}): Promise<string> =>
  runnerRepoWith("jest", {
    "src/slug.js": [
      '// The seam\'s bug: runs of spaces become runs of dashes ("a  b" -> "a--b").',
      'const slash = require("slash");',
      "function slugify(text) {",
      '  return slash(text).trim().toLowerCase().replace(/ /g, "-");',
      "}",
      "",
      "module.exports = { slugify };",
      "",
    ].join("\n"),
    ...more,
  });

describe.concurrent("a mock the runner applies by itself", () => {
  it(
    "jest: a new __mocks__/slash.js that collapses the spaces does not complete",
    () =>
      limited(async () => {
        const run = await slugLane(
          "jest",
          writingCoder({ "__mocks__/slash.js": ['module.exports = (t) => t.replace(/ +/g, " ");'] }),
          { repo: await repoUsingSlash() },
        );
        expect(run.error).toBeNull();
        const record = await run.store.read("iterator_run");
        expect(record?.terminal?.verdict).toBe("exhausted");
        const seam = await attemptEnvelope(run, "seam");
        expect(seam?.overall_result).toBe("fail");
        expect(seam?.summary).toContain("__mocks__/slash.js");
      }),
    300_000,
  );

  // Review (stop 32): the base's mock loads a helper; editing the helper, not the mock, made the
  // seam pass. The base's mocks and what they load are pinned as seam files now.
  it(
    "jest: an edit to the test helper a base mock loads does not complete",
    () =>
      limited(async () => {
        const repo = await repoUsingSlash({
          "__mocks__/slash.js": 'module.exports = require("../test/helpers/slash-impl.js");\n',
          "test/helpers/slash-impl.js": "module.exports = (t) => t;\n",
        });
        const run = await slugLane(
          "jest",
          writingCoder({ "test/helpers/slash-impl.js": ['module.exports = (t) => t.replace(/ +/g, " ");'] }),
          { repo },
        );
        expect(run.error).toBeNull();
        const record = await run.store.read("iterator_run");
        expect(record?.terminal?.verdict).toBe("exhausted");
        expect(record?.readiness?.contract?.seam_files.map((f) => f.path)).toEqual(
          expect.arrayContaining(["__mocks__/slash.js", "test/helpers/slash-impl.js"]),
        );
      }),
    300_000,
  );

  it(
    "jest: the correct fix completes on the same repository",
    () =>
      limited(async () => {
        const run = await slugLane("jest", writingCoder({}, true), { repo: await repoUsingSlash() });
        const record = await run.store.read("iterator_run");
        expect(record?.terminal?.verdict, record?.terminal?.reason).toBe("completed");
      }),
    300_000,
  );
});
