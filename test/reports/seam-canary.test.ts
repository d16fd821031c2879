/**
 * The seam canary (ADR 0028) against the real runners: an honest fix still passes with the canary
 * failing as it must; code the seam loads that neuters the assertion library, or that rewrites the
 * runner's output and forges its exit status, is caught; no canary file is left in the checkout.
 *
 * Cause of the bug these pin (issue 9 class 4): the seam verifier believed the runner's report,
 * and code loaded by the seam test runs in the same process as the test.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SeamEnvelope } from "../../src/artifacts/schemas/verifier-envelope.js";
import { checkSeamRedOnBase, runSeamVerifier, type SeamBaseCheck } from "../../src/verify/seam.js";
import { type FixtureRepo, type FixtureRunner, makeFixtureRepo } from "./runner-fixture.js";

const SLUG = "src/slug.js";
const TIMEOUT = 120_000;

/** Per runner: a module side effect in src/slug.js that makes the seam's own assertions pass. */
const NEUTER: Record<FixtureRunner, string> = {
  "node-test":
    'import __a from "node:assert";\nimport __s from "node:assert/strict";\n' +
    'for (const o of [__a, __s]) for (const k of Object.keys(o)) if (typeof o[k] === "function") o[k] = () => {};\n',
  mocha:
    'for (const o of [require("node:assert"), require("node:assert").strict])\n' +
    '  for (const k of Object.keys(o)) if (typeof o[k] === "function") o[k] = () => {};\n',
  tape:
    'const __T = require("tape").Test;\nconst __assert = __T.prototype._assert;\n' +
    "__T.prototype._assert = function (ok, opts) { return __assert.call(this, true, opts); };\n",
  jest: 'expect.extend({ toBe: () => ({ pass: true, message: () => "" }) });\n',
  vitest:
    'import { expect as __e } from "vitest";\n__e.extend({ toBe: () => ({ pass: true, message: () => "" }) });\n',
};

/** The runners whose NEUTER targets node:assert, which devflow's preload pins (ADR 0040). */
const ASSERT_PINNED = new Set<FixtureRunner>(["node-test", "mocha"]);

/** Rewrites the runner's failure lines on stdout and forces exit status 0 (any runner). */
const FORGE_OUTPUT = [
  "const __write = process.stdout.write.bind(process.stdout);",
  'process.stdout.write = (chunk, ...rest) => __write(typeof chunk === "string" ? chunk.replace(/not ok/g, "ok") : chunk, ...rest);',
  "const __exit = process.exit.bind(process);",
  "process.exit = () => __exit(0);",
  'process.on("exit", () => { process.exitCode = 0; });',
  "",
].join("\n");

const RUNNERS: FixtureRunner[] = ["node-test", "mocha", "tape", "jest", "vitest"];

describe.each(RUNNERS)("seam canary with %s", (runner) => {
  let repo: FixtureRepo;
  let base: SeamBaseCheck;
  let original: string;
  let n = 0;

  beforeAll(async () => {
    repo = await makeFixtureRepo(runner);
    original = await readFile(join(repo.dir, SLUG), "utf8");
    base = await checkSeamRedOnBase({
      cwd: repo.dir,
      command: "npm test",
      timeoutMs: TIMEOUT,
      logPath: join(repo.outside, "base.log"),
    });
    expect(base.red, base.message).toBe(true);
  }, 300_000);
  afterAll(() => repo?.cleanup());

  async function seamAfter(slug: string): Promise<SeamEnvelope> {
    await writeFile(join(repo.dir, SLUG), slug);
    n += 1;
    const envelope = await runSeamVerifier({
      worktree: repo.dir,
      seam: { command: "npm test", files: ["test/slug.test.js"] },
      expectedGreenCondition: null,
      timeoutMs: TIMEOUT,
      logPath: join(repo.outside, `seam-${n}.log`),
      attemptId: "attempt-001",
      tests: base.tests,
      invocation: base.invocation,
    });
    // The canary is gone again: the checkout holds the coder's change and nothing of devflow's.
    const status = (await execa("git", ["status", "--porcelain", "--untracked-files=all"], { cwd: repo.dir }))
      .stdout;
    const left = status.split("\n").filter((l) => l.trim() !== "" && l !== "?? node_modules");
    expect(left).toEqual([` M ${SLUG}`]);
    return envelope;
  }

  it("an honest fix passes, with the canary failing as it must", async () => {
    const seam = await seamAfter(original.replace(".replace(/ /g,", ".replace(/ +/g,"));
    expect(seam.overall_result, seam.summary).toBe("pass");
    expect(seam.native_payload.canary).toEqual({ status: "failed_as_required", reason: null });
  }, 180_000);

  it("a neutered assertion library in a module the seam imports fails the seam with the canary reason", async () => {
    const seam = await seamAfter(NEUTER[runner] + original);
    expect(seam.overall_result).toBe("fail");
    // Since ADR 0040 devflow's preload pins node:assert: neutering it throws while the module loads,
    // so with node:test and mocha the canary never reports (missing); the other runners' libraries
    // are not pinned, and there the canary passes. Either way the seam fails as tampered.
    expect(seam.summary).toMatch(
      ASSERT_PINNED.has(runner)
        ? /the seam run cannot fail: the canary test "devflow seam canary \w+" is missing from the report/
        : /the seam run cannot fail: the canary test "devflow seam canary \w+" passed/,
    );
    expect(seam.native_payload.canary?.status).toBe("tampered");
    expect(seam.native_payload.findings).toContainEqual(expect.stringMatching(/^tamper: /));
  }, 180_000);

  it("a module that rewrites failure lines on stdout and forges exit 0 does not pass", async () => {
    const seam = await seamAfter(FORGE_OUTPUT + original);
    expect(seam.overall_result, seam.summary).toBe("fail");
    // tape's report is its stdout: there the rewrite turns the pinned test green, and only the
    // canary (reported "ok" as well) shows it. The other runners report outside the test process.
    if (runner === "tape") expect(seam.native_payload.canary?.status).toBe("tampered");
  }, 180_000);

  it("an honest fix plus a forged exit status 0 fails where the forge reaches the exit status", async () => {
    const forgeExit = FORGE_OUTPUT.split("\n").slice(2).join("\n");
    const seam = await seamAfter(forgeExit + original.replace(".replace(/ /g,", ".replace(/ +/g,"));
    // tape decides its exit status in the process that loads the coder's module, where this forge
    // works; node:test, jest and vitest decide it in a parent process the test code cannot reach,
    // and mocha sets it after this module's exit listener ran, so there nothing is forged.
    if (runner === "tape") {
      expect(seam.overall_result).toBe("fail");
      expect(seam.summary).toMatch(
        /the runner exited 0 although its canary test failed \(exit status forged\)/,
      );
    } else expect(seam.overall_result, seam.summary).toBe("pass");
  }, 180_000);
});
