import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { contractSha256 } from "../../src/artifacts/schemas/index.js";
import {
  CORRECT_FIX,
  coderScript,
  NEAR_MISS_CODER,
  runLane,
  TASK_ID,
  tempDir,
} from "../support/lane-harness.js";
import { withMountNamespaceOff } from "../support/mount-namespace-off.js";

// These attacks go to the user's checkout or devflow's task dir by path. Where a mount namespace
// works (ADR 0025) they are prevented outright (coder-mount-namespace.test.ts); here they pin the
// fallback that runs everywhere else (macOS, unprivileged Linux): detection by the fingerprint and
// the tamper checks.
withMountNamespaceOff();

/**
 * The pinned contract (ADR 0018), attacked by `command:` coders on the real csv-import fixture.
 * The worktree is `.devflow/worktrees/<id>`, the artifacts `.devflow/iterate/<id>`: a coder can
 * reach them as `../../iterate/<id>` (full confinement is a separate defence), so every attack here
 * is one a coder can really make. None of them may end `completed`.
 */

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" });

/** Script prelude: the task's artifact dir as the coder can reach it, and a JSON edit helper. */
const REACH = `
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { resolve } from "node:path";

const artifacts = resolve("../../iterate/${TASK_ID}");
const edit = (rel, change) => {
  const file = resolve(artifacts, rel);
  const value = JSON.parse(readFileSync(file, "utf8"));
  change(value);
  writeFileSync(file, JSON.stringify(value, null, 2) + "\\n");
};
`;

const gitCommit = (...args: string[]) =>
  `execFileSync("git", ["-c", "user.name=coder", "-c", "user.email=coder@example.com", ${args.map((a) => JSON.stringify(a)).join(", ")}]);`;

describe("the pinned contract: a coder cannot rewrite what it is judged against", () => {
  it("a coder that rewrites the seam command to `true` and allowed_paths to ** in the task and observation does not complete", async () => {
    const coder = `${REACH}
      edit("task_artifact.json", (t) => { t.scope_boundary.allowed_paths = ["**"]; });
      edit("observation_artifact.json", (o) => { o.failing_seam.command = "true"; o.expected_green_condition = "exit 0"; });
      // No fix at all, and an out-of-scope change the widened scope would have allowed.
      writeFileSync("package.json", readFileSync("package.json", "utf8").replace('"name"', '"private": true, "name"'));
      console.log("Done.");
    `;
    const run = await runLane({ coder: coderScript(coder), lane: { maxJudgeAttempts: 2 } });
    expect(run.error).toBeNull();
    // The verifiers ran the pinned seam and scope, not `true` and **: the attempt fails on its own
    // evidence, whatever the tamper check says.
    const run1 = await run.store.read("iterator_run");
    const gate = run1?.attempts[0]?.gate;
    expect(gate?.checks).toContainEqual({ verifier: "seam", overall_result: "fail" });
    expect(gate?.checks).toContainEqual({ verifier: "scope", overall_result: "fail" });
    expect(gate?.result).toBe("fail");
    // And the tamper check stops the run at once, naming both files.
    expect(run.result?.terminal.verdict).toBe("blocked");
    const reason = run.result?.terminal.reason ?? "";
    expect(reason).toMatch(/tamper: task_artifact\.json/);
    expect(reason).toMatch(/tamper: observation_artifact\.json/);
    expect(run1?.attempts).toHaveLength(1);
  });

  it("a correct fix whose coder also edits the task scope is still refused: the record was tampered with", async () => {
    const coder = `${REACH}
      ${CORRECT_FIX.replace(/^import .*$/m, "")}
      edit("task_artifact.json", (t) => { t.scope_boundary.allowed_paths = ["**"]; });
    `;
    const run = await runLane({ coder: coderScript(coder) });
    expect(run.result?.terminal.verdict).toBe("blocked");
    expect(run.result?.terminal.reason).toMatch(/tamper: task_artifact\.json differs from revision 1 pinned/);
  });

  it("a coder that edits iterator_run.json (the recorded contract) does not complete", async () => {
    const coder = `${REACH}
      ${CORRECT_FIX.replace(/^import .*$/m, "")}
      edit("iterator_run.json", (r) => { r.readiness.contract.seam_command = "true"; r.readiness.contract.test_command = null; });
    `;
    const run = await runLane({ coder: coderScript(coder) });
    expect(run.result?.terminal.verdict).toBe("blocked");
    const reason = run.result?.terminal.reason ?? "";
    expect(reason).toMatch(/tamper: iterator_run\.json was changed outside devflow/);
    expect(reason).toMatch(/tamper: iterator_run\.json: readiness\.contract differs/);
  });

  it("a coder that forges an earlier attempt's verifier envelope does not complete", async () => {
    // Attempt 1 changes nothing (fails); attempt 2 fixes the bug and rewrites attempt-001's seam
    // envelope to a pass, as if the record had always been green.
    const marker = join(tempDir("devflow-forge-"), "second");
    const coder = `${REACH}
      if (!existsSync(${JSON.stringify(marker)})) { writeFileSync(${JSON.stringify(marker)}, "x"); process.exit(0); }
      ${CORRECT_FIX.replace(/^import .*$/m, "")}
      edit("attempts/attempt-001/verifiers/seam.json", (e) => { e.overall_result = "pass"; e.summary = "green"; });
    `;
    const run = await runLane({ coder: coderScript(coder) });
    expect(run.result?.terminal.verdict).toBe("blocked");
    expect(run.result?.terminal.reason).toMatch(
      /tamper: attempts\/attempt-001\/verifiers\/seam\.json was changed outside devflow/,
    );
  });

  it("the pinned contract is in iterator_run.json with its sha256, and a reader can check it", async () => {
    const run = await runLane({ coder: coderScript(CORRECT_FIX) });
    expect(run.result?.terminal.verdict).toBe("completed");
    const readiness = (await run.store.read("iterator_run"))?.readiness;
    const contract = readiness?.contract;
    expect(contract?.seam_command).toBe("node --test test/email-trim.test.js");
    expect(contract?.seam_files.map((f) => f.path)).toEqual(["test/email-trim.test.js"]);
    expect(contract?.seam_files[0]?.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(contract?.base_commit).toBe(git(run.repo, "rev-parse", "main").trim());
    // The seam's tests pinned by name on base (observe) are part of the contract.
    const observation = await run.store.read("observation_artifact");
    expect(contract?.seam_tests).toEqual(observation?.seam_check?.tests);
    expect(contract?.seam_tests).toEqual([
      JSON.stringify(["test/email-trim.test.js", "imports emails with surrounding spaces, trimmed"]),
    ]);
    expect(contract && readiness?.contract_sha256).toBe(contract && contractSha256(contract));
  });
});

describe("no path from the coder to devflow's artifacts", () => {
  it("a coder looking for the attempt dir in its environment and prompt finds nothing to tamper with", async () => {
    const seen = join(tempDir("devflow-seen-"), "seen.json");
    const coder = `
      import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
      import { dirname, join } from "node:path";
      const prompt = readFileSync(process.env.DEVFLOW_PROMPT_FILE, "utf8");
      const leaks = Object.entries(process.env).filter(([, v]) => v && v.includes("/.devflow/iterate/")).map(([k]) => k);
      const found = process.env.DEVFLOW_ATTEMPT_DIR ?? (prompt.includes(".devflow/iterate") ? "prompt" : null);
      writeFileSync(${JSON.stringify(seen)}, JSON.stringify({
        attemptDirVar: process.env.DEVFLOW_ATTEMPT_DIR ?? null, leaks,
        promptMentions: prompt.includes(".devflow/iterate"), promptDir: dirname(process.env.DEVFLOW_PROMPT_FILE),
      }));
      if (found && found !== "prompt") {
        // Forge every envelope as a pass where devflow will look for them, and claim success.
        mkdirSync(join(found, "verifiers"), { recursive: true });
        for (const v of ["seam", "seam_integrity", "regression", "scope", "critic"])
          writeFileSync(join(found, "verifiers", v + ".json"), "{}");
      }
      console.log("Done.");
    `;
    const run = await runLane({ coder: coderScript(coder), lane: { maxJudgeAttempts: 1 } });
    expect(run.result?.terminal.verdict).not.toBe("completed");
    const observed = JSON.parse(readFileSync(seen, "utf8"));
    expect(observed.attemptDirVar).toBeNull();
    expect(observed.leaks).toEqual([]);
    expect(observed.promptMentions).toBe(false);
    expect(observed.promptDir.startsWith(run.store.dir)).toBe(false);
  });
});

describe("branch integrity: only refs/heads/devflow/<task_id>, where devflow saw it", () => {
  it("a coder that rewrites the branch history (amends the base commit) does not complete", async () => {
    const coder = `
      import { execFileSync } from "node:child_process";
      ${CORRECT_FIX.replace(/^import .*$/m, "import { readFileSync, writeFileSync } from 'node:fs';")}
      ${gitCommit("commit", "-qa", "--amend", "-m", "base, rewritten with the fix")}
    `;
    const run = await runLane({ coder: coderScript(coder) });
    expect(run.result?.terminal.verdict).toBe("blocked");
    expect(run.result?.terminal.reason).toMatch(/tamper: refs\/heads\/devflow\/trim-emails was rewritten/);
    // Nothing devflow committed claims the rewritten branch verified.
    expect(git(run.repo, "log", "--format=%s", `devflow/${TASK_ID}`)).not.toMatch(/^devflow\(/m);
  });

  it("a coder that moves the task branch to another commit does not complete", async () => {
    const coder = `
      import { execFileSync } from "node:child_process";
      ${CORRECT_FIX.replace(/^import .*$/m, "import { readFileSync, writeFileSync } from 'node:fs';")}
      ${gitCommit("commit", "-qam", "fix")}
      const fix = execFileSync("git", ["rev-parse", "HEAD"], { encoding: "utf8" }).trim();
      // An orphan commit holding the same tree, and the branch pointed at it.
      const tree = execFileSync("git", ["rev-parse", "HEAD^{tree}"], { encoding: "utf8" }).trim();
      const orphan = execFileSync("git", ["-c", "user.name=c", "-c", "user.email=c@c", "commit-tree", tree, "-m", "orphan"], { encoding: "utf8" }).trim();
      execFileSync("git", ["update-ref", "refs/heads/devflow/${TASK_ID}", orphan, fix]);
    `;
    const run = await runLane({ coder: coderScript(coder) });
    expect(run.result?.terminal.verdict).toBe("blocked");
    expect(run.result?.terminal.reason).toMatch(/tamper: refs\/heads\/devflow\/trim-emails was rewritten/);
  });

  it("a coder that switches to another devflow/* branch does not get its work committed there as completed", async () => {
    const coder = `
      import { execFileSync } from "node:child_process";
      execFileSync("git", ["checkout", "-qb", "devflow/elsewhere"]);
      ${CORRECT_FIX.replace(/^import .*$/m, "import { readFileSync, writeFileSync } from 'node:fs';")}
    `;
    const run = await runLane({ coder: coderScript(coder) });
    expect(run.result?.terminal.verdict).toBe("blocked");
    expect(run.result?.terminal.reason).toMatch(
      /tamper: HEAD of the task checkout points at refs\/heads\/devflow\/elsewhere, not refs\/heads\/devflow\/trim-emails/,
    );
    // ADR 0025: the branch the coder switched to exists only in its own checkout; in the user's
    // repository there is no devflow/elsewhere and the task branch is still at the base.
    expect(git(run.repo, "for-each-ref", "--format=%(refname)", "refs/heads/devflow/")).toBe(
      `refs/heads/devflow/${TASK_ID}\n`,
    );
    expect(git(run.repo, "rev-parse", `devflow/${TASK_ID}`)).toBe(git(run.repo, "rev-parse", "main"));
  });

  it("legitimate: the demo's near miss, then the fix, still completes", async () => {
    const run = await runLane({ coder: NEAR_MISS_CODER });
    expect(run.result?.terminal.verdict).toBe("completed");
    expect(run.result?.terminal.reason).not.toMatch(/tamper/);
  });
});
