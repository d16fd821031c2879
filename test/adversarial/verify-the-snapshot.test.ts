/**
 * Attacks and one false rejection around "verify the snapshot, commit the snapshot" (issue 9,
 * class 3).
 *
 * Cause: seam, seam integrity and regression ran in the coder's live worktree, and snapshots were
 * written with the worktree's own git dir. So ignored files, symlinks pointing out of the
 * repository and files hidden through `.git/info/exclude` were seen by the tests but never judged
 * or committed; a `.devflow/` folder in the worktree was exempt from scope; and a test command
 * that wrote an untracked report into the worktree made the commit a false `tamper` rejection
 * (ADR 0023 "Does not").
 *
 * Fix (ADR 0024): every snapshot is written into devflow's own verification repository, reading
 * the coder's checkout as a work tree only; seam, integrity, regression and the base runs happen in
 * a devflow-owned checkout (`.devflow/verify/<task_id>`) reset to exactly the tree being verified;
 * ignored files the coder left and symlinks leaving the repository fail scope by name, and
 * `.devflow/` paths are judged by scope like any other.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { VerifierEnvelope } from "../../src/artifacts/schemas/index.js";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { mountNamespaceWorks } from "../../src/process/mount-namespace.js";
import { CORRECT_FIX, coderScript, NEAR_MISS_CODER, runLane, TASK_ID } from "../support/lane-harness.js";

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" });

/** The fixture with `files` written and committed on main (the task's base). */
function fixtureWith(files: Record<string, string>): string {
  const repo = createFixtureRepo("csv-import");
  for (const [path, content] of Object.entries(files)) writeFileSync(join(repo, path), content);
  git(repo, "add", "--all");
  git(repo, "commit", "-qm", "fixture setup");
  return repo;
}

/** The fixture's package.json with another `test` script. */
function withTestScript(repo: string, script: string): string {
  const pkg = JSON.parse(readFileSync(join(repo, "package.json"), "utf8"));
  return `${JSON.stringify({ ...pkg, scripts: { test: script } }, null, 2)}\n`;
}

async function scopeOf(run: Awaited<ReturnType<typeof runLane>>, attempt = "attempt-001") {
  const envelope = await run.store.readAttemptJson(attempt, "verifiers/scope.json", VerifierEnvelope);
  if (envelope?.verifier !== "scope") throw new Error(`no scope envelope for ${attempt}`);
  return envelope;
}

describe("adversarial: verify the snapshot, commit the snapshot", () => {
  it("a fix that only works thanks to an ignored file fails, naming the file", async () => {
    const repo = fixtureWith({ ".gitignore": "build/\n" });
    const coder = coderScript(`
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
mkdirSync("build", { recursive: true });
writeFileSync("build/trim.js", "export const clean = (s) => s.trim();\\n");
const f = "src/csv-import.js";
writeFileSync(f, 'import { clean } from "../build/trim.js";\\n' + readFileSync(f, "utf8").replace("if (!EMAIL.test(row.email))", "if (!EMAIL.test(clean(row.email)))"));
console.log("Trimmed the email before validating it.");
`);
    const run = await runLane({ repo, coder, lane: { maxJudgeAttempts: 1 } });
    expect(run.error).toBeNull();
    expect(run.result?.terminal.verdict).not.toBe("completed");
    const scope = await scopeOf(run);
    expect(scope.overall_result).toBe("fail");
    expect(scope.native_payload.snapshot_findings).toContain("ignored, not in the snapshot: build/");
    // The clean checkout never saw build/trim.js, so the seam is red there too.
    const seam = await run.store.readAttemptJson("attempt-001", "verifiers/seam.json", VerifierEnvelope);
    expect(seam?.overall_result).not.toBe("pass");
  });

  it("a symlink pointing outside the repository is a finding", async () => {
    const coder = coderScript(`${CORRECT_FIX}
import { symlinkSync } from "node:fs";
symlinkSync("/etc/hostname", "test/host-fixture");
`);
    const run = await runLane({ coder, lane: { maxJudgeAttempts: 1 } });
    expect(run.error).toBeNull();
    expect(run.result?.terminal.verdict).not.toBe("completed");
    const scope = await scopeOf(run);
    expect(scope.overall_result).toBe("fail");
    expect(scope.native_payload.snapshot_findings).toContain(
      "symlink leaving the repository: test/host-fixture -> /etc/hostname",
    );
  });

  it("a file hidden through the coder's .git/info/exclude is in the snapshot and judged by scope", async () => {
    const coder = coderScript(`
import { execFileSync } from "node:child_process";
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
const exclude = execFileSync("git", ["rev-parse", "--git-path", "info/exclude"], { encoding: "utf8" }).trim();
mkdirSync(dirname(exclude), { recursive: true });
appendFileSync(exclude, "\\nsrc/trim.js\\n");
writeFileSync("src/trim.js", "export const clean = (s) => s.trim();\\n");
const f = "src/csv-import.js";
writeFileSync(f, 'import { clean } from "./trim.js";\\n' + readFileSync(f, "utf8").replace("if (!EMAIL.test(row.email))", "if (!EMAIL.test(clean(row.email)))"));
console.log("Trimmed the email before validating it.");
`);
    const run = await runLane({ coder, lane: { maxJudgeAttempts: 1 } });
    expect(run.error).toBeNull();
    expect(run.result?.terminal.verdict).not.toBe("completed");
    const scope = await scopeOf(run);
    expect(scope.native_payload.changed_files).toContain("src/trim.js");
    expect(scope.native_payload.out_of_scope).toEqual(["src/trim.js"]);
  });

  it("a .devflow/ folder the coder writes into its checkout is out of scope, not exempt", async () => {
    const coder = coderScript(`${CORRECT_FIX}
import { mkdirSync } from "node:fs";
mkdirSync(".devflow", { recursive: true });
writeFileSync(".devflow/postinstall.js", "console.log('shipped in the commit');\\n");
`);
    const run = await runLane({ coder, lane: { maxJudgeAttempts: 1 } });
    expect(run.error).toBeNull();
    expect(run.result?.terminal.verdict).not.toBe("completed");
    const scope = await scopeOf(run);
    expect(scope.overall_result).toBe("fail");
    expect(scope.native_payload.out_of_scope).toEqual([".devflow/postinstall.js"]);
  });
});

describe("the verification checkout", () => {
  // Was a false rejection (ADR 0023 "Does not"): the regression command wrote an untracked report
  // into the coder's worktree, so the worktree differed from the verified tree at commit.
  it("a test command that writes an untracked report does not make a correct fix a tamper", async () => {
    const repo = createFixtureRepo("csv-import");
    writeFileSync(
      join(repo, "package.json"),
      withTestScript(repo, `node --test && node -e "require('fs').writeFileSync('test-report.txt', 'ok')"`),
    );
    git(repo, "commit", "-qam", "test script writes a report");
    const run = await runLane({ repo, coder: coderScript(CORRECT_FIX) });
    expect(run.error).toBeNull();
    expect(run.result?.terminal.verdict).toBe("completed");
    expect(git(run.repo, "ls-tree", "-r", "--name-only", `devflow/${TASK_ID}`)).not.toContain(
      "test-report.txt",
    );
  });

  it("is one checkout reused by the base runs and every attempt, reset to the tree each time", async () => {
    // Fails if a previous run's leftover is still there; prints where it ran, read back from the
    // runs' logs. (Not the inode any more: in the mount namespace each run sees the checkout through
    // an overlay of its own, ADR 0040; nor a log file of the test's: a run writes nothing outside
    // its checkout and temp dir, ADR 0075.)
    const probe = [
      "const fs = require('fs');",
      "if (fs.existsSync('leftover.txt')) { console.error('leftover from an earlier run'); process.exit(1); }",
      "fs.writeFileSync('leftover.txt', 'x');",
      "console.log('RAN-IN ' + process.cwd());",
    ].join(" ");
    const repo = createFixtureRepo("csv-import");
    writeFileSync(
      join(repo, "package.json"),
      withTestScript(repo, `node -e ${JSON.stringify(probe)} && node --test`),
    );
    git(repo, "commit", "-qam", "test script leaves a file behind");
    const run = await runLane({ repo, coder: NEAR_MISS_CODER });
    expect(run.error).toBeNull();
    expect(run.result?.terminal.verdict).toBe("completed");
    const logs = [
      join(run.store.dir, "regression_baseline.log"),
      ...["attempt-001", "attempt-002"].map((a) =>
        join(run.store.dir, "attempts", a, "verifiers", "regression.log"),
      ),
    ];
    const runs = logs.flatMap((log) =>
      [...readFileSync(log, "utf8").matchAll(/^RAN-IN (.+)$/gm)].map((m) => m[1]),
    );
    // The baseline on base, then regression in attempt-001 and attempt-002.
    expect(runs.length).toBe(3);
    expect(new Set(runs).size).toBe(1);
    expect(runs[0]).toContain(join(".devflow", "verify", TASK_ID));
  });

  /**
   * seam-run-leftover-reaches-regression (issue 9/11, per-attempt cost). Cause it guards against:
   * the reset between the seam runs and regression is skipped when every seam run is proven to
   * have written nothing into the checkout (behind its overlay, ADR 0040); a skip that trusted a
   * run without the overlay would hand regression the seam runs' leftovers. Fix: the skip asks the
   * run ledger (src/verify/checkout-run-ledger.ts), which proves a run untouched only from its
   * mounted, read-back overlay; the stat fallback always resets.
   */
  async function seamLeftoverRun() {
    const repo = createFixtureRepo("csv-import");
    const source = join(repo, "src", "csv-import.js");
    // Every process that loads the code under test in the verification checkout (the seam runs
    // too) leaves an untracked file behind, once (a later run rewriting it would be a tamper under
    // the stat fallback); in the coder's checkout it does not (it is not in the snapshot).
    writeFileSync(
      source,
      `import { existsSync, writeFileSync } from "node:fs";\nif (process.cwd().includes("/.devflow/verify/") && !existsSync("seam-leftover.txt")) writeFileSync("seam-leftover.txt", "x");\n${readFileSync(source, "utf8")}`,
    );
    const check =
      "if (require('fs').existsSync('seam-leftover.txt')) { console.error('a seam run leftover reached regression'); process.exit(1); }";
    writeFileSync(
      join(repo, "package.json"),
      withTestScript(repo, `node -e ${JSON.stringify(check)} && node --test`),
    );
    git(repo, "commit", "-qam", "the code under test leaves a file behind");
    const run = await runLane({ repo, coder: coderScript(CORRECT_FIX) });
    const regression = await run.store.readAttemptJson(
      "attempt-001",
      "verifiers/regression.json",
      VerifierEnvelope,
    );
    return { run, regression };
  }

  it.runIf(mountNamespaceWorks())(
    "a file the seam runs write never reaches the regression run (overlay: the reset is skipped)",
    async () => {
      const { run, regression } = await seamLeftoverRun();
      expect(regression?.summary).not.toContain("missing");
      expect(regression?.overall_result).toBe("pass");
      expect(run.error).toBeNull();
      expect(run.result?.terminal.verdict).toBe("completed");
    },
  );

  it("a file the seam runs write never reaches the regression run (stat fallback: the reset runs)", async () => {
    const saved = process.env.DEVFLOW_NO_PID_NAMESPACE;
    process.env.DEVFLOW_NO_PID_NAMESPACE = "1";
    try {
      const { run, regression } = await seamLeftoverRun();
      expect(regression?.summary).not.toContain("missing");
      expect(regression?.overall_result).toBe("pass");
      expect(run.error).toBeNull();
      expect(run.result?.terminal.verdict).toBe("completed");
    } finally {
      if (saved === undefined) delete process.env.DEVFLOW_NO_PID_NAMESPACE;
      else process.env.DEVFLOW_NO_PID_NAMESPACE = saved;
    }
  });
});
