/**
 * Attack 49c (review of ADR 0085), REFUSED: devflow runs base's pinned pre scripts but decides which
 * files they run (test configuration, ADR 0078/0082) from the package.json in the checkout under
 * test. Could an attempt whose scope names package.json drop `pretest` there, so base's
 * `node scripts/build.js` still runs with the attempt's edited scripts/build.js unchecked?
 *
 * Attack: base has `"pretest": "node scripts/build.js"` and tests loading `dist/`. Scope: `src/`,
 * `scripts/` (folders) and `package.json` (named exactly). The attempt fixes slugify, breaks
 * `clamp` in src/math.js, edits scripts/build.js so dist/math.js has clamp repaired, and deletes
 * `pretest` from package.json.
 *
 * Result at 3b5514c: refused. The first regression run does pass (the attempt's package.json hides
 * scripts/build.js from `saysWhatTheTestCommandRuns`), but package.json is test configuration
 * (`configuresTests`), so ADR 0082's rerun takes base's copy, and in that checkout the recipe lookup
 * reads base's scripts: "with base's copy of the test configuration the attempt changed
 * (package.json), the suite does not pass as on base: the attempt changed scripts/build.js, which
 * says what the test command `npm test` runs ...". Verdict: exhausted.
 *
 * Residual weakness (no hole found): the first run's setup findings still read the attempt's
 * package.json; deriving the recipe files from base's record (the baseline's `testConfig`, or
 * `invocation.preScripts`), as `filesTheTestCommandNames` does, would make the refusal not depend
 * on the rerun.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { commitAll, testsLoadFrom } from "../../support/build-step-project.js";
import { coderScript, runLane } from "../../support/lane-harness.js";
import {
  attemptEnvelope,
  expectAttackRefused,
  runnerRepo,
  SLUG_REQUEST,
  SLUG_TASK,
  slugCassette,
  writingCoder,
} from "../../support/runner-lane.js";

const BUILD = `const fs = require("node:fs");
fs.mkdirSync("dist", { recursive: true });
for (const f of fs.readdirSync("src")) fs.writeFileSync("dist/" + f, fs.readFileSync("src/" + f, "utf8"));
`;

async function builtRepo(): Promise<string> {
  const repo = await runnerRepo("mocha");
  const pkg = JSON.parse(await readFile(join(repo, "package.json"), "utf8"));
  pkg.scripts = { pretest: "node scripts/build.js", test: pkg.scripts.test };
  await writeFile(join(repo, "package.json"), JSON.stringify(pkg, null, 2));
  await mkdir(join(repo, "scripts"), { recursive: true });
  await writeFile(join(repo, "scripts", "build.js"), BUILD);
  await writeFile(join(repo, ".gitignore"), "node_modules\ndist/\n");
  await testsLoadFrom(repo, "dist");
  await commitAll(repo, "build");
  return repo;
}

/** The task may change the code, the build scripts' folder, and package.json (named exactly). */
const SCOPE = ["src/", "scripts/", "package.json"];

const lane = async (script: string) =>
  runLane({
    repo: await builtRepo(),
    taskId: SLUG_TASK,
    request: SLUG_REQUEST,
    cassette: slugCassette(
      "node scripts/build.js && npx mocha test/slug.test.js",
      ["test/slug.test.js"],
      SCOPE,
    ),
    coder: coderScript(script),
    lane: { maxJudgeAttempts: 1, commandTimeoutMs: 120_000, testCommand: "npm test" },
  });

/** The correct fix, clamp broken in src/, scripts/build.js repairing it in dist/; `dropPretest` also edits package.json. */
const breakAndHide = (dropPretest: boolean) => `${writingCoder({}, true)}
import { readFileSync as r, writeFileSync as w } from "node:fs";
w("src/math.js", r("src/math.js", "utf8").replace("return Math.min(Math.max(value, low), high);", "return value;"));
w("scripts/build.js", r("scripts/build.js", "utf8").replace('fs.readFileSync("src/" + f, "utf8")', 'fs.readFileSync("src/" + f, "utf8").replace("return value;", "return Math.min(Math.max(value, low), high);")'));
if (${dropPretest}) {
  const pkg = JSON.parse(r("package.json", "utf8"));
  delete pkg.scripts.pretest;
  w("package.json", JSON.stringify(pkg, null, 2));
}
`;

describe("the files base's pre scripts run are read from base, not from the attempt's package.json", () => {
  it("control: the same break hidden in scripts/build.js, package.json untouched, is refused as a setup finding", async () => {
    const run = await lane(breakAndHide(false));
    const regression = await attemptEnvelope(run, "regression");
    expect(regression?.summary).toContain("scripts/build.js, which says what the test command");
    await expectAttackRefused(run, { verifier: "regression", file: "src/math.js", broken: "return value;" });
  }, 300_000);

  it("refused: dropping `pretest` from the attempt's package.json does not make base's build script unchecked", async () => {
    const run = await lane(breakAndHide(true));
    const regression = await attemptEnvelope(run, "regression");
    const record = await run.store.read("iterator_run");
    expect(record?.terminal?.verdict).not.toBe("completed");
    // Since stop 46 base's package.json scripts are read too, so the first run already names it.
    expect(regression?.summary).toContain("scripts/build.js, which says what the test command");
    await expectAttackRefused(run, { verifier: "regression", file: "src/math.js", broken: "return value;" });
  }, 300_000);
});
