import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SeamEnvelope } from "../artifacts/schemas/verifier-envelope.js";
import { ENVELOPE_EXCERPT_BYTES } from "./envelope.js";
import { checkSeamRedOnBase, runSeamVerifier } from "./seam.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "devflow-seam-"));
  // The seam: a repro script that is red until src/trim.txt says "fixed".
  await writeFile(
    join(dir, "repro.sh"),
    'echo "checking trim"\nif grep -q fixed src.txt; then echo "trim ok"; exit 0; fi\necho "FAIL: emails keep spaces" >&2\nexit 3\n',
  );
  await writeFile(join(dir, "src.txt"), "broken\n");
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function seam(command: string, timeoutMs = 20_000) {
  const logPath = join(dir, "logs", "seam.log");
  const e = await runSeamVerifier({
    worktree: dir,
    seam: { command, files: ["repro.sh"] },
    expectedGreenCondition: "emails are trimmed before validation",
    timeoutMs,
    logPath,
    attemptId: "attempt-002",
  });
  return { e: SeamEnvelope.parse(e), logPath };
}

describe("runSeamVerifier", () => {
  it("is a misaligned failure while the seam is red, with the output excerpt and full log", async () => {
    const { e, logPath } = await seam("sh repro.sh");
    expect(e.verifier).toBe("seam");
    expect(e.attempt_id).toBe("attempt-002");
    expect(e.overall_result).toBe("fail");
    expect(e.green_condition_alignment).toBe("misaligned");
    expect(e.summary).toContain("exited 3");
    expect(e.summary).toContain("emails are trimmed before validation");
    expect(e.native_payload.exit_code).toBe(3);
    expect(e.native_payload.output_excerpt).toContain("FAIL: emails keep spaces");
    expect(e.evidence_refs).toEqual([logPath]);
    expect(await readFile(logPath, "utf8")).toContain("FAIL: emails keep spaces");
  });

  it("passes aligned once the seam is green", async () => {
    await writeFile(join(dir, "src.txt"), "fixed\n");
    const { e } = await seam("sh repro.sh");
    expect(e.overall_result).toBe("pass");
    expect(e.green_condition_alignment).toBe("aligned");
    expect(e.summary).toContain("exited 0: emails are trimmed before validation");
  });

  it("is an error, not a failure, when the command does not exist", async () => {
    const { e } = await seam("devflow-no-such-command-xyz --run");
    expect(e.overall_result).toBe("error");
    expect(e.green_condition_alignment).toBe("unknown");
    expect(e.summary).toContain("was not found");
  });

  it("is an error when the command times out, and the process is ended", async () => {
    const { e } = await seam("echo started; sleep 30", 300);
    expect(e.overall_result).toBe("error");
    expect(e.summary).toContain("timed out");
    expect(e.native_payload.timed_out).toBe(true);
  });

  it("keeps the envelope excerpt within 8 KiB for a chatty command", async () => {
    const { e, logPath } = await seam(
      `node -e "for (let i = 0; i < 5000; i++) console.log('line ' + i + ' ' + 'x'.repeat(40)); process.exitCode = 1"`,
    );
    const excerpt = String(e.native_payload.output_excerpt);
    expect(Buffer.byteLength(excerpt)).toBeLessThanOrEqual(ENVELOPE_EXCERPT_BYTES);
    expect(excerpt).toContain("line 4999");
    expect(excerpt).toContain("bytes omitted");
    expect(await readFile(logPath, "utf8")).toContain("line 2500 ");
  });

  it("is an error when aborted", async () => {
    const ac = new AbortController();
    const pending = runSeamVerifier({
      worktree: dir,
      seam: { command: "sleep 30", files: [] },
      expectedGreenCondition: null,
      timeoutMs: 60_000,
      logPath: join(dir, "abort.log"),
      attemptId: "attempt-001",
      signal: ac.signal,
    });
    setTimeout(() => ac.abort(), 100);
    const e = await pending;
    expect(e.overall_result).toBe("error");
    expect(e.summary).toContain("aborted");
  });
});

describe("checkSeamRedOnBase", () => {
  const check = (command: string, timeoutMs = 20_000) =>
    checkSeamRedOnBase({ cwd: dir, command, timeoutMs, logPath: join(dir, "logs", "base.log") });

  it("confirms a red seam", async () => {
    const r = await check("sh repro.sh");
    expect(r).toMatchObject({ ran: true, red: true, exitCode: 3 });
    expect(r.outputExcerpt).toContain("FAIL: emails keep spaces");
    expect(r.message).toContain("confirmed red");
  });

  it("does not confirm a seam claimed red that exits 0", async () => {
    await writeFile(join(dir, "src.txt"), "fixed\n");
    const r = await check("sh repro.sh");
    expect(r).toMatchObject({ ran: true, red: false, exitCode: 0 });
    expect(r.message).toContain("not confirmed");
  });

  it("reports a command that does not exist as not ran, with a clear message", async () => {
    const r = await check("devflow-no-such-command-xyz");
    expect(r).toMatchObject({ ran: false, red: false, exitCode: 127 });
    expect(r.message).toContain("`devflow-no-such-command-xyz` was not found");
  });

  it("reports a non-executable script as not ran", async () => {
    const r = await check("./repro.sh");
    expect(r).toMatchObject({ ran: false, red: false, exitCode: 126 });
    expect(r.message).toContain("is not executable");
  });

  it("reports a hang as not ran", async () => {
    const r = await check("sleep 30", 300);
    expect(r).toMatchObject({ ran: false, red: false });
    expect(r.message).toContain("timed out");
  });

  it("reports a working directory that does not exist as not ran", async () => {
    const r = await checkSeamRedOnBase({
      cwd: join(dir, "missing"),
      command: "true",
      timeoutMs: 5000,
      logPath: join(dir, "x.log"),
    });
    expect(r.ran).toBe(false);
    expect(r.message).toContain("did not run");
  });
});

describe("named seam tests (node:test)", () => {
  const command = "node --test test/trim.test.mjs";
  const writeModule = (body: string) => writeFile(join(dir, "trim.mjs"), body);
  beforeEach(async () => {
    await mkdir(join(dir, "test"));
    await writeFile(
      join(dir, "test", "trim.test.mjs"),
      [
        'import assert from "node:assert/strict";',
        'import { describe, it } from "node:test";',
        'import { trim } from "../trim.mjs";',
        'describe("trim", () => {',
        '  it("strips spaces", () => assert.equal(trim(" a "), "a"));',
        '  it("keeps inner spaces", () => assert.equal(trim("a b"), "a b"));',
        "});",
      ].join("\n"),
    );
    await writeModule("export const trim = (s) => s.trimEnd();\n");
  });
  const onBase = () =>
    checkSeamRedOnBase({ cwd: dir, command, timeoutMs: 20_000, logPath: join(dir, "logs", "base.log") });
  const verify = async (tests: string[], runs = 2) => {
    const base = await onBase();
    return SeamEnvelope.parse(
      await runSeamVerifier({
        worktree: dir,
        seam: { command, files: ["test/trim.test.mjs"] },
        expectedGreenCondition: null,
        timeoutMs: 20_000,
        logPath: join(dir, "logs", "seam.log"),
        attemptId: "attempt-001",
        tests,
        invocation: base.invocation,
        runs,
      }),
    );
  };
  const KEY = JSON.stringify(["test/trim.test.mjs", "trim", "strips spaces"]);

  it("on base, pins the tests that failed by name (not the passing ones)", async () => {
    const r = await onBase();
    expect(r).toMatchObject({ ran: true, red: true, tests: [KEY], caveat: null });
    expect(r.invocation).toEqual({ runner: "node-test", script: command });
    expect(r.message).toContain("test/trim.test.mjs > trim > strips spaces");
  });

  /**
   * The files the seam's verdict rests on (issue 9, class 8): the lane fingerprints them with the
   * seam's own, so a seam that runs an existing test file it does not list cannot be passed by
   * editing that file. Mutation: returning the command's files only (dropping failingFiles) → red.
   */
  it("on base, names the files of the failing tests as evidence, not a passing test's file", async () => {
    await writeFile(
      join(dir, "test", "other.test.mjs"),
      'import { it } from "node:test";\nit("passes", () => {});\n',
    );
    const r = await checkSeamRedOnBase({
      cwd: dir,
      command: "node --test test/",
      timeoutMs: 20_000,
      logPath: join(dir, "logs", "base.log"),
    });
    expect(r.red).toBe(true);
    expect(r.evidenceFiles).toEqual(["test/trim.test.mjs"]);
  });

  it("passes when every pinned test passes by name in every run", async () => {
    await writeModule("export const trim = (s) => s.trim();\n");
    const e = await verify([KEY], 3);
    expect(e.overall_result).toBe("pass");
    expect(e.summary).toContain("pinned test(s) passed by name in all 3 runs");
    expect(e.native_payload.runs?.map((r) => r.result)).toEqual(["green", "green", "green"]);
  });

  it("fails a module that calls process.exit(0) when the seam loads it, although the seam exits 0", async () => {
    await writeModule("export const trim = (s) => s.trim();\nprocess.exit(0);\n");
    const e = await verify([KEY]);
    expect(e.native_payload.exit_code).toBe(0);
    expect(e.overall_result).toBe("fail");
    expect(e.summary).toContain("strips spaces (missing)");
  });

  it("fails a module that turns node:assert failures into a clean exit", async () => {
    await writeModule(
      'import assert from "node:assert/strict";\nassert.equal = (a, b) => { if (a !== b) process.exit(0); };\nexport const trim = (s) => s.trimEnd();\n',
    );
    const e = await verify([KEY]);
    expect(e.overall_result).toBe("fail");
    expect(e.summary).toContain("not reported passing");
  });

  it("fails when a pinned test is skipped now", async () => {
    await writeFile(
      join(dir, "test", "trim.test.mjs"),
      (await readFile(join(dir, "test", "trim.test.mjs"), "utf8")).replace('it("strips', 'it.skip("strips'),
    );
    const base = { tests: [KEY] };
    const e = await verify(base.tests);
    expect(e.overall_result).toBe("fail");
    expect(e.summary).toContain("strips spaces (skip)");
  });

  it("a seam of inline code is a seam error on base, not confirmed red", async () => {
    const r = await checkSeamRedOnBase({
      cwd: dir,
      command: 'node -e "process.exit(1)"',
      timeoutMs: 20_000,
      logPath: join(dir, "logs", "inline.log"),
    });
    expect(r).toMatchObject({ ran: false, red: false, exitCode: 1 });
    expect(r.message).toContain("runs inline code");
  });

  it("a seam that is not a runner is judged by exit code, with a caveat", async () => {
    const r = await check("sh repro.sh");
    expect(r).toMatchObject({
      red: true,
      tests: [],
      invocation: null,
      caveat: "seam identified by exit code only",
    });
  });

  // Mutation: `filesTheCommandNames` returning [] → red; without the test-path filter → red
  // (src.txt, the program's own input here, would be frozen like the code a fix must change).
  it("names the test files the command runs as evidence, not program files, flags, directories or files outside", async () => {
    await mkdir(join(dir, "node_modules", "x"), { recursive: true });
    await writeFile(join(dir, "node_modules", "x", "run.test.sh"), "exit 1\n");
    await mkdir(join(dir, "test", "fixtures"), { recursive: true });
    await writeFile(join(dir, "test", "fixtures", "input.txt"), "x\n");
    await writeFile(join(dir, "repro.test.sh"), await readFile(join(dir, "repro.sh"), "utf8"));
    const outside = await mkdtemp(join(tmpdir(), "devflow-seam-outside-"));
    await writeFile(join(outside, "o.test.sh"), "exit 1\n");
    try {
      const r = await check(
        `sh repro.test.sh --quiet test test/fixtures/input.txt node_modules/x/run.test.sh ${join(outside, "o.test.sh")} ../o.test.sh "src.txt"`,
      );
      expect(r.red).toBe(true);
      expect(r.evidenceFiles).toEqual(["repro.test.sh", "test/fixtures/input.txt"]);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});

const check = (command: string) =>
  checkSeamRedOnBase({ cwd: dir, command, timeoutMs: 20_000, logPath: join(dir, "logs", "x.log") });

/**
 * Regression (stop 35): vitest seams became traced in stop 34, and CI's "a setup file vitest's
 * config runs ... stays editable when the task's scope names it exactly" ended exhausted: the run
 * opened the changed `test/setup.js`, which the task's scope names, and the opened-files check
 * refused it as test code changed besides the seam's files. Fix: the opened-files check leaves out
 * the regular files the scope names exactly (`scopeNamed`), as observe leaves them out of the
 * seam's files. Mutation: `changedForOpenedFiles` returning every changed file → the second case
 * is red. The stop-35 review showed the first fix too wide (a scope-named link, and the other
 * exposure checks): the last case pins the link (mutation: the regular-file test dropped → it
 * passes, i.e. goes red here). (Needs strace, as CI installs it; without it nothing is traced and
 * the first case fails.)
 */
describe("runSeamVerifier and the files the task's scope names", () => {
  // A verification run's layout (ADR 0031), which a traced run needs: the user's repo read-only,
  // devflow's home hidden, the checkout inside it.
  let checkout: string;
  const judge = (scopeNamed: string[]) =>
    runSeamVerifier({
      worktree: checkout,
      seam: { command: "sh repro.sh", files: ["repro.sh"] },
      expectedGreenCondition: null,
      timeoutMs: 20_000,
      logPath: join(dir, "logs", "seam.log"),
      attemptId: "attempt-001",
      mounts: { readOnly: join(dir, "repo"), hide: join(dir, "repo", ".devflow") },
      changedFiles: ["test/setup.txt"],
      scopeNamed,
    });
  beforeEach(async () => {
    // The seam reads a changed test file that says "fixed": test data the attempt changed.
    checkout = join(dir, "repo", ".devflow", "checkout");
    await mkdir(join(checkout, "test"), { recursive: true });
    await writeFile(join(checkout, "test", "setup.txt"), "fixed\n");
    await writeFile(join(checkout, "repro.sh"), "if grep -q fixed test/setup.txt; then exit 0; fi\nexit 3\n");
  });

  it("refuses a seam run that opened changed test data the scope does not name", async () => {
    const e = await judge(["src.txt"]);
    expect(e.native_payload.load_trace?.status).toBe("traced");
    expect(e.overall_result).toBe("fail");
    expect(e.summary).toContain(
      "opened test code or data the attempt changed besides the seam's files (test/setup.txt)",
    );
  });

  it("passes when the scope names that file exactly: it is the change, not evidence", async () => {
    const e = await judge(["./test/setup.txt"]);
    expect(e.native_payload.load_trace?.status).toBe("traced");
    expect(e.overall_result, e.summary).toBe("pass");
  });

  it("refuses it when the scope-named path is a link: it stands for whatever it points to", async () => {
    // The changed path is a link to new data under src/ (not a test path itself): only the link's
    // name, which the scope names, ties the data to the test tree.
    await mkdir(join(checkout, "src"), { recursive: true });
    await writeFile(join(checkout, "src", "cases.txt"), "fixed\n");
    await rm(join(checkout, "test", "setup.txt"));
    await symlink("../src/cases.txt", join(checkout, "test", "setup.txt"));
    const e = await judge(["test/setup.txt"]);
    expect(e.native_payload.load_trace?.status).toBe("traced");
    expect(e.overall_result).toBe("fail");
    expect(e.summary).toContain(
      "opened test code or data the attempt changed besides the seam's files (test/setup.txt)",
    );
  });
});
