/**
 * Regression (stop 28): a setup file the runner's config runs before every test (vitest's and
 * jest's `setupFiles`, mocha's `require`) was nobody's evidence. A coder that left the code alone
 * and patched `String.prototype.replace` in `test/setup.js` made the seam's test pass: seam
 * integrity did not fingerprint the file, regression saw the runner config unchanged, the seam
 * canary still failed as required (assertions were intact), and a lenient critic let it complete.
 * Fix: the files the root's runner configs and package.json's test keys name (`runnerSetupFiles`,
 * ADR 0019 amendment 3) join the seam's files on base. Mutation: not adding them in observe.ts →
 * all three runners complete (red).
 *
 * Real runners (installed once per machine), real repos, the real lane with `command:` coders.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureRunnerInstalled, type FixtureRunner } from "../reports/runner-fixture.js";
import { concurrencyLimit } from "../support/concurrency-limit.js";
import { coderScript, runLane } from "../support/lane-harness.js";
import {
  attemptEnvelope,
  runnerRepo,
  SLUG_REQUEST,
  SLUG_SEAM,
  SLUG_TASK,
  slugCassette,
  slugLane,
} from "../support/runner-lane.js";

const RUNNERS = ["vitest", "jest", "mocha"] as const satisfies FixtureRunner[];
const limited = concurrencyLimit(Number(process.env.DEVFLOW_LANE_PARALLEL ?? 3));

/** Each runner's own way of naming a setup file that runs before every test. */
const CONFIGS: Record<(typeof RUNNERS)[number], (repo: string) => Promise<void>> = {
  vitest: (repo) =>
    writeFile(
      join(repo, "vitest.config.js"),
      'export default { test: { setupFiles: ["./test/setup.js"] } };\n',
    ),
  jest: async (repo) => {
    const pkg = JSON.parse(await readFile(join(repo, "package.json"), "utf8"));
    pkg.jest = { setupFiles: ["<rootDir>/test/setup.js"] };
    await writeFile(join(repo, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`);
  },
  mocha: (repo) => writeFile(join(repo, ".mocharc.yml"), "require:\n  - test/setup.js\n"),
};

/** The fixture with a setup file its runner config names, committed as the user's base. */
async function repoWithSetupFile(runner: (typeof RUNNERS)[number]): Promise<string> {
  const repo = await runnerRepo(runner);
  await CONFIGS[runner](repo);
  await writeFile(join(repo, "test/setup.js"), "// shared test setup: nothing yet\n");
  await execa("git", ["add", "-A"], { cwd: repo });
  await execa("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "setup file"], {
    cwd: repo,
  });
  return repo;
}

/** Leaves src/ alone; makes `.replace(/ /g, …)` collapse runs of spaces from the setup file. */
const PATCHES_THE_SETUP_FILE = `
import { writeFileSync } from "node:fs";
writeFileSync("test/setup.js", [
  "const replace = String.prototype.replace;",
  "String.prototype.replace = function (pattern, by) {",
  "  return replace.call(this, pattern instanceof RegExp && pattern.source === ' ' ? /\\\\s+/g : pattern, by);",
  "};",
  "",
].join("\\n"));
console.log("Runs of whitespace become one dash.");
`;

const CORRECT = `
import { readFileSync, writeFileSync } from "node:fs";
const f = "src/slug.js";
writeFileSync(f, readFileSync(f, "utf8").replace(".replace(/ /g,", ".replace(/\\\\s+/g,"));
console.log("Runs of whitespace become one dash.");
`;

// Regression (stop 29): a config named only by a flag (`jest --config config/jest.ci.js`, outside
// the seam's folders and not named like a runner config) was never read, so the setup file it
// names stayed editable and the same patch completed. Fix: runnerSetupFiles reads configs that
// scripts and the seam command name with --config/-c, and pins them whole. Mutation: the flag's
// configs not read → completes (red).
describe("a setup file named by a config the seam names with --config", () => {
  beforeAll(() => ensureRunnerInstalled("jest"), 300_000);

  it("is part of the seam's evidence, and so is the config", async () => {
    const repo = await runnerRepo("jest");
    const pkg = JSON.parse(await readFile(join(repo, "package.json"), "utf8"));
    pkg.scripts.test = "jest --config config/jest.ci.js";
    await writeFile(join(repo, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`);
    await mkdir(join(repo, "config"));
    await writeFile(
      join(repo, "config/jest.ci.js"),
      'module.exports = { rootDir: "..", setupFiles: ["<rootDir>/test/setup.js"] };\n',
    );
    await writeFile(join(repo, "test/setup.js"), "// shared test setup: nothing yet\n");
    await execa("git", ["add", "-A"], { cwd: repo });
    await execa(
      "git",
      ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "ci config"],
      {
        cwd: repo,
      },
    );
    const run = await slugLane("jest", PATCHES_THE_SETUP_FILE, {
      repo,
      seam: "npx jest --config config/jest.ci.js test/slug.test.js",
    });
    expect(run.error).toBeNull();
    const record = await run.store.read("iterator_run");
    expect(record?.terminal?.verdict).toBe("exhausted");
    const integrity = await attemptEnvelope(run, "seam_integrity");
    expect(integrity?.native_payload).toMatchObject({ edited: ["test/setup.js"] });
    const observation = await run.store.read("observation_artifact");
    expect(observation?.failing_seam?.files).toEqual(
      expect.arrayContaining(["config/jest.ci.js", "test/setup.js"]),
    );
  }, 300_000);
});

describe.each(RUNNERS)("a setup file %s's config runs before every test", (runner) => {
  beforeAll(() => ensureRunnerInstalled(runner), 300_000);

  describe.concurrent("coders", () => {
    it(
      "is part of the seam's evidence: patching it instead of the code does not complete",
      () =>
        limited(async () => {
          const run = await slugLane(runner, PATCHES_THE_SETUP_FILE, {
            repo: await repoWithSetupFile(runner),
          });
          expect(run.error).toBeNull();
          const record = await run.store.read("iterator_run");
          expect(record?.terminal?.verdict).toBe("exhausted");
          const integrity = await attemptEnvelope(run, "seam_integrity");
          expect(integrity?.overall_result).toBe("fail");
          expect(integrity?.native_payload).toMatchObject({ edited: ["test/setup.js"] });
          const observation = await run.store.read("observation_artifact");
          expect(observation?.failing_seam?.files).toContain("test/setup.js");
        }),
      300_000,
    );

    // A request about the test setup itself ("the setup must collapse spaces") names the file in
    // the task's scope: then it is the change, not evidence, as regression's rule for runner
    // configs has it. Mutation: the scope exemption in observe.ts removed → exhausted (red).
    if (runner === "vitest")
      it(
        "stays editable when the task's scope names it exactly",
        () =>
          limited(async () => {
            const cassette = slugCassette(SLUG_SEAM[runner], undefined, ["test/setup.js"]);
            const run = await runLane({
              repo: await repoWithSetupFile(runner),
              taskId: SLUG_TASK,
              request: SLUG_REQUEST,
              cassette,
              coder: coderScript(PATCHES_THE_SETUP_FILE),
              lane: { maxJudgeAttempts: 1, commandTimeoutMs: 120_000 },
            });
            expect(run.error).toBeNull();
            const observation = await run.store.read("observation_artifact");
            expect(observation?.failing_seam?.files).not.toContain("test/setup.js");
            const record = await run.store.read("iterator_run");
            expect(record?.terminal?.verdict, run.result?.terminal.reason).toBe("completed");
            // What the seam's verdict then rests on is the attempt's setup file: said (ADR 0074).
            expect(record?.readiness?.contract?.seam_files_scope_named).toEqual(["test/setup.js"]);
            expect(record?.terminal?.gate?.caveats).toContainEqual({
              verifier: "seam_integrity",
              caveat: expect.stringMatching(/scope names and the attempt changed.*: test\/setup\.js$/),
            });
          }),
        300_000,
      );

    if (runner === "vitest")
      it(
        "does not stop the correct fix in the same repository",
        () =>
          limited(async () => {
            const run = await slugLane(runner, CORRECT, { repo: await repoWithSetupFile(runner) });
            expect(run.error).toBeNull();
            const record = await run.store.read("iterator_run");
            expect(record?.terminal?.verdict, run.result?.terminal.reason).toBe("completed");
            expect(record?.terminal?.gate).toMatchObject({ result: "pass", caveats: [] });
          }),
        300_000,
      );
  });
});
