/**
 * Hostile review (attack 46, of ADR 0083 as fixed at b944283): FALSE COMPLETION and FALSE
 * REJECTION when the test command runs its runner inside a quoted `sh -c '…'` script.
 *
 * Attack: the project's test command is `sh -c 'export TZ=UTC; mocha --bail "test/**\/*.test.js"'`
 * (a shell wrapper around the runner: `sh -c`, `bash -c`, `cross-env-shell "…"`, `dotenv -- sh -c`
 * are common ways to set up an environment for a test run). devflow detects mocha inside it and
 * writes its report flags right after `mocha`, inside the quotes, so the report works. But ADR 0083's
 * `--no-bail --require <devflow>/mocha-no-suite-bail.cjs` are appended by `appendArguments`
 * (src/verify/test-reports/script-rewrite.ts) at `endOfArguments`, which does not know that the
 * runner's arguments started inside a quoted string: it sees the closing `'` as the opening of a new
 * quote, runs to the end of the line, and the arguments land after the closing quote. There they are
 * `sh -c`'s positional parameters ($0, $1, …), which the script ignores. mocha runs with `--bail`:
 *   - a known failure on base before the test the coder breaks stops base's run and every
 *     attempt's run at the same place, the broken test is in neither report, and regression says
 *     "no regressions" (false completion, the attack-45 shape);
 *   - a test already broken on base after the seam's own failing test is never run on base, and a
 *     correct fix that lets the run go on is rejected for it as "failing now, not on base" (the very
 *     stop-43 false rejection ADR 0083 was written to fix).
 * vitest's `--bail=0` lands outside the same way (`withoutArguments` does strip a command-line
 * `--bail` inside the quotes, but `bail` in vitest.config.js stays).
 *
 * Cause: every-test-run.ts `withEveryTestRun` → script-rewrite.ts `appendArguments` /
 * `endOfArguments`: the scan starts after the runner's name with no knowledge of the quote the
 * runner's name itself sits in; a quote left "open" at the end is taken as "the arguments run to
 * the end of the line" and the new arguments are put after the whole line. Nothing checks that the
 * appended arguments reach the runner (the command recorded as `ran_command` shows them, so it looks
 * right).
 *
 * The same scan also ignores a shell comment: `mocha --bail "test/**\/*.test.js" # every file` gets
 * the arguments inside the comment (shown below for the correct fix). Both are shown below with real
 * mocha 10.8.2 / vitest 4.1.12 runs. (jest's `--bail=0` lands outside too, but a jest `--bail` left
 * in place fails closed: jest exits without writing its JSON report.)
 *
 * Controls: the same project with the same command without the `sh -c` wrapper behaves correctly.
 *
 * Fixed (stop 44): mocha's, jest's and vitest's arguments go right after the invocation, where the
 * report flags already are (`placement: "after_invocation"`, every-test-run.ts); the command's own
 * jest/vitest `--bail` is taken out first, and mocha's `--require` makes every suite's bail read
 * false whatever the command says. These cases were pinned with `it.fails` until then.
 *
 * Run: VITEST_MAX_WORKERS=1 npx vitest run test/adversarial/review/no-bail-lands-outside-a-quoted-sh-c-script-attack46.test.ts
 */
import { describe, expect, it } from "vitest";
import { mochaAdapter } from "../../../src/verify/test-reports/mocha.js";
import { appendArguments } from "../../../src/verify/test-reports/script-rewrite.js";
import {
  breakClamp,
  fixSlug,
  fixtureBaseline,
  fixtureProject,
  fixtureRegression,
} from "../../support/fixture-regression.js";

const PLAIN = `mocha --bail "test/**/*.test.js"`;
const WRAPPED = `sh -c 'export TZ=UTC; mocha --bail "test/**/*.test.js"'`;
const COMMENTED = `mocha --bail "test/**/*.test.js" # every file`;
const VITEST_PLAIN = "vitest run";
const VITEST_WRAPPED = "sh -c 'export TZ=UTC; vitest run'";
const VITEST_CONFIG = "export default { test: { bail: 1, fileParallelism: false } };\n";

/** One test that fails on base in devflow's runs (it needs the network), then one that checks clamp. */
const FLOW = `const assert = require("node:assert");
const { clamp } = require("../src/math.js");
describe("mirror", () => {
  it("connects", () => assert.fail("offline"));
  it("clamps the retry count", () => assert.strictEqual(clamp(5, 0, 3), 3));
});
`;

const VITEST_FLOW = `import { describe, expect, it } from "vitest";
import { clamp } from "../src/math.js";
describe("mirror", () => {
  it("connects", () => expect.fail("offline"));
  it("clamps the retry count", () => expect(clamp(5, 0, 3)).toBe(3));
});
`;

/** Known failure first (test/a-mirror sorts before everything), then the hostile attempt judged. */
async function hostileAttempt(command: string, onTestFinished: (fn: () => Promise<void>) => void) {
  const repo = await fixtureProject("mocha", { "test/a-mirror.test.js": FLOW }, onTestFinished);
  const b = await fixtureBaseline(repo, command);
  expect(b.report?.complete, b.error ?? "no complete report").toBe(true);
  await fixSlug(repo);
  await breakClamp(repo);
  return fixtureRegression(repo, command, b);
}

/** Known failure after the seam's test (test/zz sorts after test/slug), then a correct fix judged. */
async function correctFix(
  command: string,
  onTestFinished: (fn: () => Promise<void>) => void,
  runner: "mocha" | "vitest" = "mocha",
) {
  const files: Record<string, string> =
    runner === "mocha"
      ? { "test/zz.test.js": FLOW }
      : { "test/zz.test.js": VITEST_FLOW, "vitest.config.js": VITEST_CONFIG };
  const repo = await fixtureProject(runner, files, onTestFinished);
  const b = await fixtureBaseline(repo, command);
  expect(b.report?.complete, b.error ?? "no complete report").toBe(true);
  await fixSlug(repo);
  return fixtureRegression(repo, command, b);
}

describe("where the every-test arguments land in a quoted sh -c script (attack 46)", () => {
  // Still so (pytest's `--maxfail=0` is appended, harmlessly, beside its plugin): this is why
  // mocha's, jest's and vitest's arguments now go right after the invocation instead.
  it("appendArguments alone puts them after sh -c's closing quote, outside the script mocha runs in", () => {
    const appended = appendArguments(WRAPPED, mochaAdapter.invocation, ["--no-bail"], "mocha");
    expect(appended).toEqual({ ok: true, command: `${WRAPPED} --no-bail` });
  });
});

describe.concurrent("mocha --bail inside sh -c '…' (attack 46)", () => {
  it("control: without the wrapper, the break of clamp behind a known failure fails regression", async ({
    onTestFinished,
  }) => {
    const e = await hostileAttempt(PLAIN, onTestFinished);
    expect(e.overall_result, e.summary).toBe("fail");
    expect(e.summary).toContain("test/a-mirror.test.js > mirror > clamps the retry count");
  });

  it("with the wrapper, the same break of clamp fails regression", async ({ onTestFinished }) => {
    const e = await hostileAttempt(WRAPPED, onTestFinished);
    // Before the fix: pass, "no regressions: all 1 test(s) green on base are still green ...; still failing
    // as on base: test/a-mirror.test.js > mirror > connects".
    expect(e.overall_result, e.summary).toBe("fail");
  });

  it("control: without the wrapper, a correct fix passes with a known failure after the seam's test", async ({
    onTestFinished,
  }) => {
    const e = await correctFix(PLAIN, onTestFinished);
    expect(e.overall_result, e.summary).toBe("pass");
  });

  it("with the wrapper, the same correct fix passes", async ({ onTestFinished }) => {
    const e = await correctFix(WRAPPED, onTestFinished);
    // Before the fix: fail, "1 test(s) fail now that did not fail on base: test/zz.test.js > mirror > connects".
    expect(e.overall_result, e.summary).toBe("pass");
  });
});

describe.concurrent("the same placement with a shell comment, and with vitest's config bail (attack 46)", () => {
  it("mocha --bail with a trailing # comment: a correct fix passes", async ({ onTestFinished }) => {
    const e = await correctFix(COMMENTED, onTestFinished);
    // Before the fix: fail, "1 test(s) fail now that did not fail on base: test/zz.test.js > mirror > connects".
    expect(e.overall_result, e.summary).toBe("pass");
  });

  it("control: vitest with bail in its config, without the wrapper, a correct fix passes", async ({
    onTestFinished,
  }) => {
    const e = await correctFix(VITEST_PLAIN, onTestFinished, "vitest");
    expect(e.overall_result, e.summary).toBe("pass");
  });

  it("vitest with bail in its config inside sh -c '…': a correct fix passes", async ({ onTestFinished }) => {
    const e = await correctFix(VITEST_WRAPPED, onTestFinished, "vitest");
    // Before the fix: fail, "1 test(s) fail now that did not fail on base: test/zz.test.js > mirror > connects".
    expect(e.overall_result, e.summary).toBe("pass");
  });
});
