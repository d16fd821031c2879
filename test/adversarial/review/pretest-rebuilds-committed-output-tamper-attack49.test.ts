/**
 * Attack 49b (review of ADR 0085): a project that commits its build output and rebuilds it in
 * `pretest` can no longer complete anything: base "could not run" (tamper) and every attempt is
 * rejected, the correct fix too. False rejection, new with the pre scripts.
 *
 * Attack (an honest, common layout): `lib/` is tracked (a package that publishes from git, or
 * keeps generated code in the repository), the tests load `lib/`, and
 * `"pretest": "node scripts/build.js"` rewrites `lib/` from `src/` (same bytes when the two agree).
 * The correct fix changes src/slug.js and rebuilds lib/slug.js, as the project expects.
 *
 * Why it happens: ADR 0085 runs base's pre scripts inside the verification run. A verification run
 * may write only untracked files (ADR 0040: the overlay's copy-up, or without it the checkout's
 * stat), and the build rewrites tracked files, even with the very bytes they hold. So base's report
 * run fails as `tamper: the test run changed tracked files lib/math.js, lib/slug.js`, the console
 * fallback (also prefixed with the pre scripts) fails the same way, the baseline is "could not run",
 * and every attempt's run errors with the same tamper. Through the lane (overlay copy-up) the task
 * is "blocked" before any attempt: "the regression command `npm test` could not run on the base
 * commit: tamper: ...". Before 3b5514c mocha ran on the committed lib/ and the correct fix (src and
 * lib both fixed) passed regression by mocha's report (the control). `--test-cmd "npm test"` is no
 * way out: it pins the same pre scripts.
 *
 * Suggested fix: a pre script is the project's, not the code under test: run it before the run
 * whose writes are checked (its own confined run, with its writes to tracked files compared by
 * content, not by stat or copy-up: a rewrite with the same bytes is no change), or judge tracked
 * files a pre script rewrites by content after it and before the runner starts. At the very least
 * a baseline whose only failure is a pre script writing tracked files should fall back to running
 * the runner without the pre scripts (as before ADR 0085) rather than reject every attempt.
 *
 * Fixed (stop 46), was `it.fails`: when base's run with the pre scripts gives no complete report,
 * base runs once more without them; if that gives one, every attempt runs without them, and the
 * verdict says so ("npm's pre scripts were left out: …"), in the summary, `pre_scripts_left_out`
 * and a gate caveat. Only where the checkout overlay proves the first run left the checkout as it
 * was (attack 50f): in this file's unit harness there is none, so that case fails closed; the lane
 * case completes.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PRE_SCRIPTS_LEFT_OUT_CAVEAT } from "../../../src/verify/completion-gate.js";
import type { FixtureRepo } from "../../reports/runner-fixture.js";
import {
  commitAll,
  committedLibProject,
  copyBuildScript,
  testsLoadFrom,
} from "../../support/build-step-project.js";
import { fixSlug, fixtureBaseline, fixtureRegression } from "../../support/fixture-regression.js";
import { coderScript, runLane } from "../../support/lane-harness.js";
import {
  attemptEnvelope,
  runnerRepo,
  SLUG_REQUEST,
  SLUG_TASK,
  slugCassette,
} from "../../support/runner-lane.js";

/** The correct fix as this project makes it: src/slug.js fixed and lib/ rebuilt (then the checkout is reset to it). */
async function correctFix(repo: FixtureRepo) {
  await fixSlug(repo);
  await writeFile(join(repo.dir, "lib/slug.js"), await readFile(join(repo.dir, "src/slug.js"), "utf8"));
  await commitAll(repo.dir, "attempt");
}

describe("a pretest that rebuilds committed output", () => {
  it("control: without a pretest, base gets mocha's report and the correct fix passes", async ({
    onTestFinished,
  }) => {
    const repo = await committedLibProject({ test: "mocha 'test/**/*.test.js'" }, onTestFinished);
    const base = await fixtureBaseline(repo, "npm test");
    expect(base.report?.complete, base.error ?? "").toBe(true);
    await correctFix(repo);
    const fixed = await fixtureRegression(repo, "npm test", base);
    expect(fixed.overall_result, fixed.summary).toBe("pass");
  }, 240_000);

  it("without the checkout overlay, `pretest` rewriting tracked lib/ rejects the correct fix, saying why (fails closed)", async ({
    onTestFinished,
  }) => {
    const repo = await committedLibProject(
      { pretest: "node scripts/build.js", test: "mocha 'test/**/*.test.js'" },
      onTestFinished,
    );
    const base = await fixtureBaseline(repo, "npm test");
    // Seen at 3b5514c: ran false, error "tamper: the test run changed tracked files lib/math.js,
    // lib/slug.js (a test run may write only untracked files)".
    console.log("attack49b base:", base.ran, base.error);
    await correctFix(repo);
    const fixed = await fixtureRegression(repo, "npm test", base);
    // Seen: error "test suite could not run: tamper: the test run changed tracked files lib/math.js, lib/slug.js ...".
    console.log("attack49b fix:", fixed.overall_result, fixed.summary);
    expect(fixed.overall_result, fixed.summary).not.toBe("pass");
    expect(fixed.summary).toContain("tamper: the test run changed tracked files lib/math.js, lib/slug.js");
  }, 240_000);
});

/** The mocha fixture as a user's repo with lib/ committed and rebuilt by `pretest`. */
async function committedBuildRepo(): Promise<string> {
  const repo = await runnerRepo("mocha");
  const pkg = JSON.parse(await readFile(join(repo, "package.json"), "utf8"));
  pkg.scripts = { pretest: "node scripts/build.js", test: pkg.scripts.test };
  await writeFile(join(repo, "package.json"), JSON.stringify(pkg, null, 2));
  await mkdir(join(repo, "scripts"), { recursive: true });
  await writeFile(join(repo, "scripts", "build.js"), copyBuildScript("lib"));
  await mkdir(join(repo, "lib"), { recursive: true });
  for (const f of ["math.js", "slug.js"])
    await writeFile(join(repo, "lib", f), await readFile(join(repo, "src", f), "utf8"));
  await testsLoadFrom(repo, "lib");
  await commitAll(repo, "lib");
  return repo;
}

/** The correct fix in src/slug.js, and lib/ rebuilt as the project does it. */
const FIX_AND_REBUILD = `
import { readFileSync, writeFileSync, copyFileSync } from "node:fs";
const f = "src/slug.js";
writeFileSync(f, readFileSync(f, "utf8").replace(".replace(/ /g,", ".replace(/\\\\s+/g,"));
copyFileSync("src/slug.js", "lib/slug.js");
console.log("Runs of whitespace become one dash.");
`;

describe("through the lane (checkout overlay where the mount namespace works)", () => {
  it("the correct fix (src and the committed lib/ both fixed) completes", async () => {
    const run = await runLane({
      repo: await committedBuildRepo(),
      taskId: SLUG_TASK,
      request: SLUG_REQUEST,
      cassette: slugCassette("npx mocha test/slug.test.js"),
      coder: coderScript(FIX_AND_REBUILD),
      lane: { maxJudgeAttempts: 1, commandTimeoutMs: 120_000, testCommand: "npm test" },
    });
    const regression = await attemptEnvelope(run, "regression");
    const record = await run.store.read("iterator_run");
    // Seen at 3b5514c: verdict "blocked" before any attempt: "the regression command `npm test`
    // could not run on the base commit: tamper: the test run changed tracked files lib/math.js,
    // lib/slug.js (a test run may write only untracked files). Fix it or pass --test-cmd <command>."
    console.log(
      "attack49b lane:",
      record?.terminal?.verdict,
      "|",
      run.result?.terminal.reason,
      "| regression:",
      regression?.overall_result,
      regression?.summary,
    );
    expect(record?.terminal?.verdict, regression?.summary).toBe("completed");
    // What the pre scripts would build from the attempt's code was not rebuilt: the verdict says so.
    expect(record?.terminal?.gate?.caveats).toContainEqual({
      verifier: "regression",
      caveat: PRE_SCRIPTS_LEFT_OUT_CAVEAT,
    });
  }, 300_000);
});
