/**
 * Regression (review of stop 35). Cause: the seam verifier left the paths the task's scope names
 * exactly out of every exposure check (withoutScopeNamed). Two fakes completed on the real lane
 * with the bug kept (src/slug.js untouched); both were refused before that change:
 * - the scope names a folder exactly (`test/cases`, which the scope verifier reads as the folder);
 *   the coder replaces the folder by a link to a new program folder whose case expects the bug:
 *   the only changed test path the run reached is the link `test/cases`, which the scope "names";
 * - a whole-suite mocha seam and a scope naming a new test file exactly (`test/aa.test.js`, "add a
 *   regression test there"): the file replaces slugify in the seam's process (stop 30's attack).
 * Fix: only the opened-files check leaves out scope-named paths, and only regular files
 * (changedForOpenedFiles in src/verify/seam.ts).
 * Real mocha, real strace, real repos, the real lane with `command:` coders.
 */
import { describe, expect, it } from "vitest";
import { ensureRunnerInstalled } from "../../reports/runner-fixture.js";
import {
  attemptEnvelope,
  runnerRepo,
  runnerRepoWith,
  seamLane,
  TABLE_SEAM,
  writingCoder,
} from "../../support/runner-lane.js";

async function laneWithScope(
  repo: string,
  seam: string,
  seamFiles: string[],
  script: string,
  scope: string[],
) {
  const run = await seamLane(repo, seam, seamFiles, script, scope);
  expect(run.error).toBeNull();
  return run;
}

async function expectRefused(run: Awaited<ReturnType<typeof laneWithScope>>, summaryPart: string) {
  const record = await run.store.read("iterator_run");
  expect(record?.terminal?.verdict, record?.terminal?.reason).toBe("exhausted");
  const seam = await attemptEnvelope(run, "seam");
  expect(seam?.overall_result).toBe("fail");
  expect(seam?.summary).toContain(summaryPart);
}

describe("a path the task's scope names exactly is no way round the seam's exposure checks", () => {
  it("a folder the scope names, replaced by a link to a program folder expecting the bug", {
    timeout: 300_000,
  }, async () => {
    const repo = await runnerRepoWith("mocha", {
      "test/cases.test.js": TABLE_SEAM,
      "test/cases/spaces.json": '{ "input": "Hello  World", "want": "hello-world" }\n',
    });
    const coder = `
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
mkdirSync("src/cases", { recursive: true });
writeFileSync("src/cases/spaces2.json", '{ "input": "Hello  World", "want": "hello--world" }\\n');
rmSync("test/cases", { recursive: true });
symlinkSync("../src/cases", "test/cases");
console.log("Runs of whitespace become one dash.");
`;
    const run = await laneWithScope(repo, "npx mocha test/cases.test.js", ["test/cases.test.js"], coder, [
      "src/",
      "test/cases",
    ]);
    await expectRefused(
      run,
      "opened test code or data the attempt changed besides the seam's files (test/cases)",
    );
  });

  it("a new test file the scope names, loaded into a whole-suite mocha seam's process", {
    timeout: 300_000,
  }, async () => {
    await ensureRunnerInstalled("mocha");
    const run = await laneWithScope(
      await runnerRepo("mocha"),
      "npx mocha 'test/**/*.test.js'",
      ["test/slug.test.js"],
      writingCoder({
        "test/aa.test.js": [
          'require("../src/slug.js").slugify = (t) => t.trim().toLowerCase().replace(/\\s+/g, "-");',
          'it("aa", () => {});',
        ],
      }),
      ["src/slug.js", "test/aa.test.js"],
    );
    await expectRefused(run, "the attempt changed test code besides the seam's files (test/aa.test.js)");
  });
});
