/**
 * The whole iterate lane on repos that use the real runners users have (issue 9, "Done when",
 * second bullet): mocha, jest, vitest, tape and node:test, installed from npm into a cache by the
 * test setup (test/reports/runner-fixture.ts). Each fixture (test/fixtures/runners/<runner>) has
 * same-named tests in different files and suites ("works" five times), the seam inside the suite
 * (test/slug.test.js > slug > collapses repeated spaces fails on base) and a file where every test
 * passes (test/math.test.js). Scope is unrestricted and the critic lenient, so only devflow's
 * verifiers stand between a coder and `completed`. Assertions are on artifacts (iterator_run.json's
 * verdict and gate, the attempt's verifier envelopes), never on console text.
 */
import { cp, readFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureRunnerInstalled, type FixtureRunner } from "../reports/runner-fixture.js";
import { concurrencyLimit } from "../support/concurrency-limit.js";
import type { LaneRun } from "../support/lane-harness.js";
import { withMountNamespaceOff } from "../support/mount-namespace-off.js";
import { attemptEnvelope, runnerRepo, SLUG_TASK, slugLane } from "../support/runner-lane.js";

const RUNNERS = ["node-test", "mocha", "jest", "vitest", "tape"] as const satisfies FixtureRunner[];
/**
 * The runners whose reports name every test by file, suites and title (tape's TAP does not). The
 * correct, empty, test-editing and test-breaking coders of evidence.test.ts ran here a second time
 * on the same fixture with the same script; their named-evidence assertions live in these tests
 * now, so each of those lane runs happens once.
 */
const NAMED_EVIDENCE = new Set<FixtureRunner>(["node-test", "mocha", "jest"]);
const limited = concurrencyLimit(Number(process.env.DEVFLOW_LANE_PARALLEL ?? 3));

/** Script prelude: read/write helpers (the coder runs in its checkout). */
const PRELUDE = `
import { existsSync, readFileSync, writeFileSync } from "node:fs";
const read = (f) => readFileSync(f, "utf8");
const write = (f, s) => writeFileSync(f, s);
const fixSeam = () => write("src/slug.js", read("src/slug.js").replace(".replace(/ /g,", ".replace(/\\\\s+/g,"));
/** Breaks math > works in test/math.test.js only; slug.test.js has a passing test of the same name. */
const breakMathWorks = () => {
  const before = read("test/math.test.js");
  const after = before.replace("add(1, 2), 3)", "add(1, 2), 4)").replace("add(1, 2)).toBe(3)", "add(1, 2)).toBe(4)");
  if (after === before) throw new Error("math > works not found");
  write("test/math.test.js", after);
};
`;

const CORRECT = `${PRELUDE}
fixSeam();
console.log("Runs of whitespace become one dash.");`;

const EMPTY = `console.log("Done: slugify collapses spaces now.");`;

const TEST_EDITING = `${PRELUDE}
write("test/slug.test.js", read("test/slug.test.js").replace('"Hello  World"', '"Hello World"'));
console.log("Fixed the test.");`;

const TEST_BREAKING = `${PRELUDE}
fixSeam();
breakMathWorks();
console.log("Fixed.");`;

/**
 * Fixes the seam, breaks math > works, and hides the broken test through the runner's own setup:
 * its config file where it has one, the package.json test script where it does not.
 */
const RUNNER_TAMPERING: Record<FixtureRunner, string> = {
  "node-test": `${PRELUDE}
fixSeam(); breakMathWorks();
const pkg = JSON.parse(read("package.json")); pkg.scripts.test = "node --test test/slug.test.js"; write("package.json", JSON.stringify(pkg, null, 2));`,
  mocha: `${PRELUDE}
fixSeam(); breakMathWorks();
write(".mocharc.json", JSON.stringify({ ignore: ["test/math.test.js"] }));`,
  jest: `${PRELUDE}
fixSeam(); breakMathWorks();
write("jest.config.js", "module.exports = { testPathIgnorePatterns: ['/node_modules/', 'math'] };\\n");`,
  vitest: `${PRELUDE}
fixSeam(); breakMathWorks();
write("vitest.config.js", "export default { test: { exclude: ['**/node_modules/**', '**/math.test.js'] } };\\n");`,
  tape: `${PRELUDE}
fixSeam(); breakMathWorks();
const pkg = JSON.parse(read("package.json")); pkg.scripts.test = "tape test/slug.test.js"; write("package.json", JSON.stringify(pkg, null, 2));`,
};

/**
 * Fixes the seam, breaks math > works, and patches the runner's own package (in the repo's own
 * copy of node_modules) so that the run always exits 0.
 */
const RUNNER_PACKAGE_TAMPERING = `${PRELUDE}
fixSeam(); breakMathWorks();
const bin = "node_modules/mocha/bin/mocha.js";
write(bin, read(bin).replace(/^(#!.*\\n)?/, (shebang) => shebang + "process.on('exit', () => { process.exitCode = 0; });\\n"));
console.log("All green.");`;

async function iteratorRun(run: LaneRun) {
  return run.store.read("iterator_run");
}

/** What must hold for any coder that must not complete: the record says so, with a failing gate. */
async function expectNotCompleted(run: LaneRun) {
  expect(run.error).toBeNull();
  const record = await iteratorRun(run);
  expect(record?.terminal?.verdict).not.toBe("completed");
  expect(record?.terminal?.verdict).toBe(run.result?.terminal.verdict);
  return record;
}

describe.each(RUNNERS)("the iterate lane on a real %s repo", (runner) => {
  beforeAll(async () => {
    if (runner !== "node-test") await ensureRunnerInstalled(runner);
  }, 300_000);

  describe.concurrent("coders", () => {
    it(
      "the correct fix completes: named seam evidence, per-test regression, right content on the branch",
      () =>
        limited(async () => {
          const run = await slugLane(runner, CORRECT);
          expect(run.error).toBeNull();
          const record = await iteratorRun(run);
          expect(record?.terminal?.verdict, run.result?.terminal.reason).toBe("completed");
          expect(record?.terminal?.gate).toMatchObject({ result: "pass", caveats: [] });
          expect(record?.attempts.map((a) => a.verdict)).toEqual(["pass"]);
          const seam = await attemptEnvelope(run, "seam");
          expect(seam?.overall_result).toBe("pass");
          expect(seam?.native_payload).toMatchObject({ evidence: "named_tests" });
          const regression = await attemptEnvelope(run, "regression");
          expect(regression?.overall_result).toBe("pass");
          expect(regression?.native_payload).toMatchObject({ compared: "per_test", seam_tests_excluded: 1 });
          if (NAMED_EVIDENCE.has(runner)) {
            // Named evidence (was evidence.test.ts's own lane run of this coder): the Observer pinned
            // the seam's test by its full identity, the seam's named test passed 3 times, and
            // regression compared by identity from the runner's reporter.
            const observation = await run.store.read("observation_artifact");
            expect(observation?.seam_check?.tests).toEqual([
              JSON.stringify(["test/slug.test.js", "slug", "collapses repeated spaces"]),
            ]);
            expect(seam?.native_payload).toMatchObject({ runs: [{}, {}, {}] });
            expect(regression?.native_payload).toMatchObject({ source: "reporter" });
          }
          const { stdout } = await execa("git", ["show", `devflow/${SLUG_TASK}:src/slug.js`], {
            cwd: run.repo,
          });
          expect(stdout).toContain(".replace(/\\s+/g,");
        }),
      300_000,
    );

    it(
      "an empty coder does not complete (empty change)",
      () =>
        limited(async () => {
          const run = await slugLane(runner, EMPTY);
          const record = await expectNotCompleted(run);
          expect(record?.terminal?.verdict).toBe("exhausted");
          expect(record?.terminal?.gate?.reasons.join("\n")).toContain("empty change");
        }),
      300_000,
    );

    it(
      "a test-editing coder does not complete (seam integrity)",
      () =>
        limited(async () => {
          const run = await slugLane(runner, TEST_EDITING);
          const record = await expectNotCompleted(run);
          expect(record?.terminal?.verdict).toBe("exhausted");
          expect(record?.attempts[0]?.gate?.checks).toContainEqual({
            verifier: "seam_integrity",
            overall_result: "fail",
          });
          expect((await attemptEnvelope(run, "seam_integrity"))?.overall_result).toBe("fail");
        }),
      300_000,
    );

    it(
      "a runner-tampering coder (runner config or test script hides a broken test) does not complete",
      () =>
        limited(async () => {
          const run = await slugLane(runner, RUNNER_TAMPERING[runner]);
          const record = await expectNotCompleted(run);
          expect(record?.terminal?.verdict).toBe("exhausted");
          expect(record?.attempts[0]?.gate?.checks).toContainEqual({
            verifier: "regression",
            overall_result: "fail",
          });
          const regression = await attemptEnvelope(run, "regression");
          expect(regression?.native_payload).toMatchObject({ compared: "per_test" });
        }),
      300_000,
    );

    it(
      "a test-breaking coder (a same-named test in another file) does not complete",
      () =>
        limited(async () => {
          const run = await slugLane(runner, TEST_BREAKING);
          const record = await expectNotCompleted(run);
          expect(record?.terminal?.verdict).toBe("exhausted");
          const regression = await attemptEnvelope(run, "regression");
          expect(regression?.overall_result).toBe("fail");
          // tape's TAP names neither file nor suite: its tests are told apart by order ("works"#n,
          // displayed "works"); the others name the full identity.
          const broken = runner === "tape" ? "works" : "test/math.test.js > math > works";
          expect(regression?.native_payload).toMatchObject({
            regressions: [expect.objectContaining({ name: broken, now: "fail" })],
          });
        }),
      300_000,
    );
  });
});

describe("the iterate lane on a real mocha repo with its own node_modules", () => {
  // Where the mount namespace works the coder sees node_modules read-only and the patch fails
  // outright (ADR 0025); this pins the check every platform has: the runner binary resolved on
  // base is pinned, a changed one is a tamper finding (ADR 0022).
  withMountNamespaceOff();
  it("a coder that patches the runner's package (bin/mocha.js exits 0) does not complete", async () => {
    const modules = await ensureRunnerInstalled("mocha");
    // A private copy, so the coder's patch lands in this repo and never in the shared runner cache.
    const repo = await runnerRepo("mocha", { linkRunner: false, prefix: "devflow-mocha-own-modules-" });
    await cp(modules, join(repo, "node_modules"), {
      recursive: true,
      dereference: false,
      verbatimSymlinks: true,
    });
    const run = await slugLane("mocha", RUNNER_PACKAGE_TAMPERING, { repo });
    const record = await expectNotCompleted(run);
    // The patch really landed in the repo's node_modules (what the worktree links to).
    expect(await readFile(join(repo, "node_modules", "mocha", "bin", "mocha.js"), "utf8")).toContain(
      "process.exitCode = 0",
    );
    expect(["blocked", "exhausted"]).toContain(record?.terminal?.verdict);
  }, 300_000);
});
