import { existsSync } from "node:fs";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureRunnerInstalled, type FixtureRunner } from "../reports/runner-fixture.js";
import { coderScript, runLane } from "../support/lane-harness.js";
import { attemptEnvelope, runnerRepo, SLUG_TASK, slugCassette, slugLane } from "../support/runner-lane.js";

/*
 * Named evidence, end to end: the real lane on a repo that uses a real test runner (installed
 * from npm once per machine), with `command:` coders doing the bad things coders do. The fixture
 * (test/fixtures/runners/<runner>) has the seam inside the suite: test/slug.test.js >
 * slug > collapses repeated spaces fails on base; "works" tests of the same name live in both
 * test files. Scope is unrestricted (a lenient task), so only the evidence can stop a cheat.
 */

const TASK = SLUG_TASK;

/** Fixes the seam the honest way. */
const CORRECT = `
import { readFileSync, writeFileSync } from "node:fs";
const f = "src/slug.js";
writeFileSync(f, readFileSync(f, "utf8").replace(".replace(/ /g,", ".replace(/\\\\s+/g,"));
console.log("Runs of whitespace become one dash.");
`;

/** Fixes the seam, breaks another file's "math > works" (a twin of slug.test.js's), and neuters the suite script. */
const SCRIPT_TAMPERING = `
import { readFileSync, writeFileSync } from "node:fs";
const f = "src/slug.js";
writeFileSync(f, readFileSync(f, "utf8").replace(".replace(/ /g,", ".replace(/\\\\s+/g,"));
const t = "test/math.test.js";
writeFileSync(t, readFileSync(t, "utf8").replace("add(1, 2), 3)", "add(1, 2), 4)"));
const pkg = JSON.parse(readFileSync("package.json", "utf8"));
pkg.scripts.test = "exit 0";
writeFileSync("package.json", JSON.stringify(pkg, null, 2));
console.log("All green.");
`;

/** The correct fix plus an .npmrc whose node-options preload would rewrite any test run npm starts. */
const NPMRC_TAMPERING = `
import { readFileSync, writeFileSync } from "node:fs";
const f = "src/slug.js";
writeFileSync(f, readFileSync(f, "utf8").replace(".replace(/ /g,", ".replace(/\\\\s+/g,"));
writeFileSync(".npmrc", "node-options=--require ./preload.cjs\\n");
writeFileSync("preload.cjs", "process.on('exit', () => { process.exitCode = 0; });\\n");
console.log("Fixed.");
`;

/** The module the seam loads ends the process with 0 before any test runs. */
const EXIT_ZERO = (esm: boolean) => `
import { readFileSync, writeFileSync } from "node:fs";
const f = "src/slug.js";
writeFileSync(f, ${esm ? "" : '"process.exit(0);\\n" + '}readFileSync(f, "utf8")${esm ? ' + "\\nprocess.exit(0);\\n"' : ""});
console.log("Seam passes.");
`;

/** A fix that works every other time the module loads: a counter file outside the checkout decides. */
const FLAKY = (esm: boolean, counter: string) => {
  const head = esm
    ? 'import { readFileSync, writeFileSync } from "node:fs";'
    : 'const { readFileSync, writeFileSync } = require("node:fs");';
  const tail = esm ? "export function slugify" : "function slugify";
  const exports = esm ? "" : "\nmodule.exports = { slugify };\n";
  const body = `${head}
let n = 0;
try { n = Number(readFileSync(${JSON.stringify(counter)}, "utf8")) || 0; } catch {}
writeFileSync(${JSON.stringify(counter)}, String(n + 1));
${tail}(text) {
  return text.trim().toLowerCase().replace(n % 2 === 0 ? /\\s+/g : / /g, "-");
}${exports}`;
  return `
import { writeFileSync } from "node:fs";
writeFileSync("src/slug.js", ${JSON.stringify(body)});
console.log("Fixed (mostly).");
`;
};

function lane(runner: FixtureRunner, coder: string, opts: { seam?: string; attempts?: number } = {}) {
  return slugLane(runner, coder, opts);
}

type Run = Awaited<ReturnType<typeof lane>>;
const envelope = (run: Run, name: string) => attemptEnvelope(run, name);

const ESM: Record<string, boolean> = { "node-test": true, mocha: false, jest: false };

// The correct, empty, test-editing and test-breaking coders on these three runners are lane runs
// real-runners.test.ts makes with the same fixture and script: their named-evidence assertions
// (the seam's test pinned by identity and passing 3 times, regression by identity from the
// reporter, the seam_integrity envelope, the broken twin named) are there, so each runs once.
describe.each(["node-test", "mocha", "jest"] as const)("named evidence with %s", (runner) => {
  beforeAll(async () => {
    if (runner !== "node-test") await ensureRunnerInstalled(runner);
  }, 300_000);

  it('a runner-tampering coder ("test": "exit 0" over a broken test) does not complete', async () => {
    const run = await lane(runner, SCRIPT_TAMPERING);
    expect(run.result?.terminal.verdict).toBe("exhausted");
    const regression = await envelope(run, "regression");
    expect(regression?.overall_result).toBe("fail");
    expect(regression?.summary).toContain("test setup in package.json");
    // The base's script ran, not "exit 0": the broken test is named by its full identity.
    expect(regression?.summary).toContain("test/math.test.js > math > works (fail)");
  }, 180_000);

  it("a coder that adds an .npmrc with a node-options preload does not complete", async () => {
    const run = await lane(runner, NPMRC_TAMPERING);
    expect(run.result?.terminal.verdict).toBe("exhausted");
    const regression = await envelope(run, "regression");
    expect(regression?.overall_result).toBe("fail");
    expect(regression?.summary).toContain("the attempt changed .npmrc");
  }, 180_000);

  it("a coder whose module calls process.exit(0) when the seam loads it does not complete", async () => {
    const run = await lane(runner, EXIT_ZERO(ESM[runner] ?? false));
    expect(run.result?.terminal.verdict).toBe("exhausted");
    const seam = await envelope(run, "seam");
    expect(seam?.overall_result).toBe("fail");
    expect(seam?.summary).toMatch(/not reported passing|incomplete|no .* report/);
  }, 180_000);
});

// jest runs each file in a worker it may reuse, so a module-level counter is not one load per run.
describe.each(["node-test", "mocha"] as const)("repeated seam runs with %s", (runner) => {
  it("a 50% flaky fix is caught by the repeated seam runs", async () => {
    const counter = join(await mkdtemp(join(tmpdir(), "devflow-flaky-")), "counter");
    const run = await lane(runner, FLAKY(ESM[runner] ?? false, counter));
    expect(run.result?.terminal.verdict).toBe("exhausted");
    const seam = await envelope(run, "seam");
    expect(seam?.overall_result).toBe("fail");
    expect(seam?.summary).toContain("flaky");
    expect(seam?.native_payload).toMatchObject({ findings: [expect.stringContaining("flake")] });
    expect(existsSync(counter)).toBe(true);
  }, 180_000);
});

describe("strict red on base", () => {
  it('a seam `node -e "process.exit(1)"` is not confirmed red, and no coder runs', async () => {
    const run = await lane("node-test", CORRECT, { seam: 'node -e "process.exit(1)"' });
    expect(run.error).toBeNull();
    expect(run.result?.terminal.verdict).toBe("needs_more_context");
    const observation = await run.store.read("observation_artifact");
    expect(observation?.status).toBe("not_confirmed");
    expect(observation?.seam_check?.red).toBe(false);
    expect(observation?.seam_check?.message).toContain("runs inline code");
    expect(existsSync(join(run.store.dir, "attempts"))).toBe(false);
  }, 120_000);

  it("a seam file with a syntax error is a seam error, not confirmed red", async () => {
    const repo = await runnerRepo("node-test");
    await writeFile(
      join(repo, "test", "broken.test.js"),
      'import { test } from "node:test";\ntest("x", () => {\n',
    );
    await execa("git", ["add", "-A"], { cwd: repo });
    await execa("git", ["-c", "user.name=t", "-c", "user.email=t@e.com", "commit", "-qm", "broken"], {
      cwd: repo,
    });
    const run = await runLane({
      repo,
      taskId: TASK,
      cassette: slugCassette("node --test test/broken.test.js", ["test/broken.test.js"]),
      coder: coderScript(CORRECT),
      lane: { maxJudgeAttempts: 1 },
    });
    expect(run.result?.terminal.verdict).toBe("needs_more_context");
    const observation = await run.store.read("observation_artifact");
    expect(observation?.seam_check?.red).toBe(false);
    expect(observation?.seam_check?.message).toContain("did not run cleanly");
    expect(existsSync(join(run.store.dir, "attempts"))).toBe(false);
  }, 120_000);

  it("a seam that collects no tests is a seam error", async () => {
    const run = await lane("node-test", CORRECT, { seam: "node --test test/no-such-dir/" });
    expect(run.result?.terminal.verdict).toBe("needs_more_context");
    const observation = await run.store.read("observation_artifact");
    expect(observation?.seam_check?.red).toBe(false);
    expect(observation?.seam_check?.message).toMatch(/seam error|not found|collected no tests/);
  }, 120_000);
});
