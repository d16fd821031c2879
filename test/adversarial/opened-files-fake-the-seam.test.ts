/**
 * Regression (stop 33): what a seam's process reads was judged by the shapes of its source (ADR
 * 0019: literals, esbuild's notes, loader words), so whatever the shapes missed could be changed
 * by the attempt and read by the seam unseen. Two such attacks completed on the real lane with a
 * lenient critic (shown with the trace turned off, DEVFLOW_NO_OPEN_TRACE=1):
 * - a table-driven seam reading every case file of `test/cases/` through `readdirSync`: a coder
 *   that left `src/slug.js` alone and rewrote `test/cases/spaces.json` to expect the bug;
 * - a seam file loading its folder's `*.test.js` through an alias of `require` (no word the text checks
 *   know): a new `test/aa.test.js` replacing `slugify`.
 * (Stop 34: the same on vitest, and a case file replaced by a link to a program file.)
 * Fix (ADR 0072): every seam run goes under strace, which records each file the run's processes
 * open, from outside them; a test-path file the attempt changed besides the seam's own that the run
 * opened makes the seam red (`openedExposure`, seam-opened-files.ts). Mutation: the check removed
 * from seam.ts → both attacks complete.
 *
 * Real mocha and vitest (installed once per machine), real strace, real repos, the real lane with `command:`
 * coders. CI installs strace (.ci/run); without it the trace is `unavailable` and this test fails.
 */
import { describe, expect, it } from "vitest";
import { concurrencyLimit } from "../support/concurrency-limit.js";
import {
  attemptEnvelope,
  runnerRepoWith,
  seamLane,
  TABLE_SEAM,
  writingCoder,
} from "../support/runner-lane.js";

const limited = concurrencyLimit(Number(process.env.DEVFLOW_LANE_PARALLEL ?? 3));

/** The same table-driven seam for vitest (the fixture is ESM: imports, and the folder from import.meta.url). */
const VITEST_TABLE_SEAM = [
  'import { readdirSync, readFileSync } from "node:fs";',
  'import { join } from "node:path";',
  'import { fileURLToPath } from "node:url";',
  'import { describe, expect, it } from "vitest";',
  'import { slugify } from "../src/slug.js";',
  'const dir = join(fileURLToPath(new URL(".", import.meta.url)), ["ca", "ses"].join(""));',
  'describe("slug cases", () => {',
  '  it("matches every case file", () => {',
  "    for (const f of readdirSync(dir).sort()) {",
  '      const { input, want } = JSON.parse(readFileSync(join(dir, f), "utf8"));',
  "      expect(slugify(input), f).toBe(want);",
  "    }",
  "  });",
  "});",
  "",
].join("\n");

async function lane(repo: string, seam: string, seamFiles: string[], script: string) {
  const run = await seamLane(repo, seam, seamFiles, script);
  expect(run.error).toBeNull();
  return run;
}

/** The lane on the `runner` fixture with its table-driven seam, and `script` as the coder. */
const tableLane = async (script: string, runner: "mocha" | "vitest" = "mocha") =>
  lane(
    await runnerRepoWith(runner, {
      "test/cases.test.js": runner === "mocha" ? TABLE_SEAM : VITEST_TABLE_SEAM,
      "test/cases/spaces.json": '{ "input": "Hello  World", "want": "hello-world" }\n',
    }),
    runner === "mocha" ? "npx mocha test/cases.test.js" : "npx vitest run test/cases.test.js",
    ["test/cases.test.js"],
    script,
  );

/** How the seam envelope of the first attempt says its runs were traced. */
const loadTrace = async (run: Awaited<ReturnType<typeof lane>>) =>
  ((await attemptEnvelope(run, "seam"))?.native_payload as { load_trace?: { status: string } } | undefined)
    ?.load_trace?.status;

/** The run did not complete: its traced seam failed, naming `path` as changed and opened. */
async function expectRefusedNaming(run: Awaited<ReturnType<typeof lane>>, path: string): Promise<void> {
  const record = await run.store.read("iterator_run");
  expect(record?.terminal?.verdict, record?.terminal?.reason).toBe("exhausted");
  const seam = await attemptEnvelope(run, "seam");
  expect(seam?.overall_result).toBe("fail");
  expect(seam?.summary).toContain("opened test code or data the attempt changed");
  expect(seam?.summary).toContain(path);
  expect(await loadTrace(run)).toBe("traced");
}

describe.concurrent("files the seam's run opens, however they are named", () => {
  // vitest was left untraced in stop 33 (for fear its dependency scan opened every file); stop 34
  // measured that it does not and traces it. Mutation: vitest taken out of tracesSeamRuns again →
  // the vitest attack completes.
  it.for(["mocha", "vitest"] as const)(
    "%s: a case file the table-driven seam reads, rewritten to expect the bug, does not complete",
    { timeout: 300_000 },
    (runner) =>
      limited(async () => {
        const run = await tableLane(
          writingCoder({ "test/cases/spaces.json": ['{ "input": "Hello  World", "want": "hello--world" }'] }),
          runner,
        );
        await expectRefusedNaming(run, "test/cases/spaces.json");
      }),
  );

  // Review (stop 34): the trace names the file the kernel opened, so the case file made a link to a
  // new program file expecting the bug was opened as that program file, and both runners completed
  // with the bug kept. Fix: a changed test path is matched by where it resolves too.
  it.for(["mocha", "vitest"] as const)(
    "%s: a case file replaced by a link to a new program file expecting the bug does not complete",
    { timeout: 300_000 },
    (runner) =>
      limited(async () => {
        const linkingCoder = `
import { symlinkSync, unlinkSync, writeFileSync } from "node:fs";
writeFileSync("src/spaces-data.json", '{ "input": "Hello  World", "want": "hello--world" }\\n');
unlinkSync("test/cases/spaces.json");
symlinkSync("../../src/spaces-data.json", "test/cases/spaces.json");
console.log("Runs of whitespace become one dash.");
`;
        await expectRefusedNaming(await tableLane(linkingCoder, runner), "test/cases/spaces.json");
      }),
  );

  it.for(["mocha", "vitest"] as const)(
    "%s: the correct fix completes on the table-driven seam, with another test file edited beside it",
    { timeout: 300_000 },
    (runner) =>
      limited(async () => {
        const other =
          runner === "mocha"
            ? 'it("other", () => {});'
            : 'import { it } from "vitest"; it("other", () => {});';
        const run = await tableLane(writingCoder({ "test/other.test.js": [other] }, true), runner);
        const record = await run.store.read("iterator_run");
        expect(record?.terminal?.verdict, record?.terminal?.reason).toBe("completed");
        expect(await loadTrace(run)).toBe("traced");
      }),
  );
});
