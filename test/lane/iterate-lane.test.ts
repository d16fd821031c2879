import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CoderReport, Lesson, VerifierEnvelope } from "../../src/artifacts/schemas/index.js";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import {
  CORRECT_FIX,
  coderScript,
  demoCassette,
  NEAR_MISS_CODER,
  runLane,
  TASK_ID,
} from "../support/lane-harness.js";

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" });

describe("iterate lane, end to end on a real repo", () => {
  it("completes on the first attempt with a commit on the task branch", async () => {
    const run = await runLane({ coder: coderScript(CORRECT_FIX) });
    expect(run.error).toBeNull();
    expect(run.result?.terminal.verdict).toBe("completed");
    const iterator = await run.store.read("iterator_run");
    expect(iterator?.attempts.map((a) => a.attempt_id)).toEqual(["attempt-001"]);
    expect(iterator?.run_state).toBe("completed");
    expect(iterator?.readiness?.cites).toEqual({
      task_artifact_revision: 1,
      observation_artifact_revision: 1,
    });
    // The branch holds the fix and the repro test, committed by devflow.
    const branch = `devflow/${TASK_ID}`;
    const files = git(run.repo, "show", "--name-only", "--format=%s", branch);
    expect(files).toContain(`devflow(${TASK_ID})`);
    expect(files).toContain("src/csv-import.js");
    expect(files).toContain("test/email-trim.test.js");
    for (const name of ["seam", "seam_integrity", "regression", "scope", "critic"]) {
      const envelope = await run.store.readAttemptJson(
        "attempt-001",
        `verifiers/${name}.json`,
        VerifierEnvelope,
      );
      expect(envelope?.overall_result, name).toBe("pass");
    }
  });

  it("with no test command, records regression as not checked and never claims it passed", async () => {
    const repo = createFixtureRepo("csv-import");
    const pkg = JSON.parse(readFileSync(join(repo, "package.json"), "utf8"));
    delete pkg.scripts;
    writeFileSync(join(repo, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`);
    git(repo, "commit", "-qam", "no test script");
    const run = await runLane({ repo, coder: coderScript(CORRECT_FIX) });
    expect(run.error).toBeNull();
    expect(run.result?.terminal.verdict).toBe("completed");

    const regression = await run.store.readAttemptJson(
      "attempt-001",
      "verifiers/regression.json",
      VerifierEnvelope,
    );
    expect(regression?.overall_result).toBe("skipped");
    expect(regression?.native_payload).toEqual({ command: null, skip_reason: "no_test_command" });

    // The terminal record and the attempt carry the gate's verdict, caveat included, unchanged.
    const iterator = await run.store.read("iterator_run");
    const gate = iterator?.terminal?.gate;
    expect(gate?.result).toBe("pass");
    expect(gate?.caveats.map((c) => c.verifier)).toEqual(["regression"]);
    expect(gate?.checks).toContainEqual({ verifier: "regression", overall_result: "skipped" });
    expect(iterator?.attempts[0]?.gate).toEqual(gate);
    expect(iterator?.attempts[0]?.summary).toMatch(/not checked: regression/);
    expect(iterator?.terminal?.reason).toMatch(/not checked: regression/);
    expect(run.result?.terminal.gate).toEqual(gate);

    // The commit names what passed and what was not checked; it never claims regression passed.
    const message = git(run.repo, "log", "-1", "--format=%B", `devflow/${TASK_ID}`);
    expect(message).toContain("Verified by devflow: seam, seam_integrity, scope and critic passed.");
    expect(message).toMatch(/^Not checked: regression: not run, so regressions were not checked/m);
    expect(message).not.toMatch(/regression[^\n]*passed/);
  });

  it("near miss then repair: attempt-001 fails, attempt-002 passes with the lesson in its prompt", async () => {
    const run = await runLane({ coder: NEAR_MISS_CODER });
    expect(run.error).toBeNull();
    expect(run.result?.terminal.verdict).toBe("completed");
    const iterator = await run.store.read("iterator_run");
    expect(iterator?.attempts.map((a) => [a.attempt_id, a.verdict])).toEqual([
      ["attempt-001", "fail"],
      ["attempt-002", "pass"],
    ]);
    expect(iterator?.attempts[0]?.respawn_reason).toMatch(/near miss/i);
    const states = iterator?.state_history.map((s) => s.state) ?? [];
    expect(states.indexOf("needs_respawn")).toBeGreaterThan(-1);
    expect(states.indexOf("needs_respawn")).toBeLessThan(states.lastIndexOf("completed"));

    const seam1 = await run.store.readAttemptJson("attempt-001", "verifiers/seam.json", VerifierEnvelope);
    expect(seam1?.overall_result).toBe("fail");
    const critic1 = await run.store.readAttemptJson("attempt-001", "verifiers/critic.json", VerifierEnvelope);
    expect(critic1?.overall_result).toBe("skipped");

    const lessons = await run.store.readJsonl("lessons.jsonl", Lesson);
    expect(lessons.map((l) => l.attempt_id)).toEqual(["attempt-001"]);
    expect(existsSync(join(run.store.dir, "steps_to_complete_the_task.md"))).toBe(true);
    const prompt2 = readFileSync(join(run.store.dir, "attempts", "attempt-002", "coder_prompt.md"), "utf8");
    expect(prompt2).toContain("Known errors from prior attempts");
    expect(prompt2).toContain(lessons[0]?.lesson);
    const prompt1 = readFileSync(join(run.store.dir, "attempts", "attempt-001", "coder_prompt.md"), "utf8");
    expect(prompt1).not.toContain("Known errors from prior attempts");
  });

  it("never completes when the coder edits the failing test to make it pass", async () => {
    const cheat = `
      import { writeFileSync } from "node:fs";
      writeFileSync("test/email-trim.test.js", 'import { test } from "node:test";\\ntest("ok", () => {});\\n');
      console.log("Fixed! All tests pass now.");
    `;
    const run = await runLane({ coder: coderScript(cheat), lane: { maxJudgeAttempts: 2 } });
    expect(run.result?.terminal.verdict).toBe("exhausted");
    const integrity = await run.store.readAttemptJson(
      "attempt-001",
      "verifiers/seam_integrity.json",
      VerifierEnvelope,
    );
    expect(integrity?.overall_result).toBe("fail");
    expect(integrity?.summary).toContain("test/email-trim.test.js");
  });

  it("does not complete a coder that changes nothing but claims success", async () => {
    const run = await runLane({
      coder: coderScript('console.log("Done: the import trims emails now.");'),
      lane: { maxJudgeAttempts: 1 },
    });
    expect(run.result?.terminal.verdict).toBe("exhausted");
    const report = await run.store.readAttemptJson("attempt-001", "coder_report.json", CoderReport);
    expect(report?.status).toBe("ok");
    expect(report?.changed_files).toEqual([]);
    expect(report?.final_message).toContain("Done");
    const seam = await run.store.readAttemptJson("attempt-001", "verifiers/seam.json", VerifierEnvelope);
    expect(seam?.overall_result).toBe("fail");
  });

  it("stops before coding when the seam claimed red runs green on base", async () => {
    const cassette = demoCassette();
    const observer = cassette.calls.observer ?? [];
    const final = observer.at(-1);
    if (!final || !("structured" in final)) throw new Error("demo cassette lost its observer answer");
    final.structured = {
      ...final.structured,
      status: "confirmed",
      failing_seam: {
        description: "existing tests",
        command: "node --test test/csv-import.test.js",
        files: [],
      },
    };
    const run = await runLane({ cassette, coder: coderScript(CORRECT_FIX) });
    expect(run.error).toBeNull();
    expect(run.result?.terminal.verdict).toBe("needs_more_context");
    const observation = await run.store.read("observation_artifact");
    expect(observation?.status).toBe("not_confirmed");
    expect(observation?.observer_claimed_status).toBe("confirmed");
    expect(observation?.seam_check?.red).toBe(false);
    expect(existsSync(join(run.store.dir, "attempts"))).toBe(false);
    expect(run.result?.terminal.questions.join(" ")).toContain("node --test test/csv-import.test.js");
  });

  it("a coder timeout escalates without consuming a judge attempt", async () => {
    // The marker lives in the coder's checkout, the one place outside its scratch dir it can write
    // (ADR 0075), which a timed-out run leaves to the next; the second run removes it again.
    const slowOnce = `
      import * as fs from "node:fs";
      const marker = ".slow-once";
      if (!fs.existsSync(marker)) { fs.writeFileSync(marker, "x"); await new Promise((r) => setTimeout(r, 60000)); }
      fs.rmSync(marker);
      ${CORRECT_FIX}
    `;
    const run = await runLane({
      coder: coderScript(slowOnce),
      lane: { maxJudgeAttempts: 1, baseTimeoutMs: 1500, maxEscalations: 1 },
    });
    expect(run.error).toBeNull();
    expect(run.result?.terminal.verdict).toBe("completed");
    const iterator = await run.store.read("iterator_run");
    expect(iterator?.attempts).toHaveLength(1);
    expect(iterator?.attempts[0]?.timeout_attempts).toBe(2);
    const report = await run.store.readAttemptJson("attempt-001", "coder_report.json", CoderReport);
    expect(report?.timeout_ms).toBe(3000);
    expect(existsSync(join(run.store.dir, "attempts", "attempt-001", "coder_transcript.timeout-1.log"))).toBe(
      true,
    );
  });

  it("exhausted attempts keep the work on the branch, labelled unverified", async () => {
    const halfFix = `
      import { readFileSync, writeFileSync } from "node:fs";
      const f = "src/csv-import.js";
      writeFileSync(f, readFileSync(f, "utf8").replace("if (!EMAIL.test(row.email))", "if (!EMAIL.test(row.email.trimEnd()))"));
    `;
    const run = await runLane({ coder: coderScript(halfFix), lane: { maxJudgeAttempts: 1 } });
    expect(run.result?.terminal.verdict).toBe("exhausted");
    const head = git(run.repo, "log", "-1", "--format=%s", `devflow/${TASK_ID}`);
    expect(head).toMatch(/unverified/);
    const source = git(run.repo, "show", `devflow/${TASK_ID}:src/csv-import.js`);
    expect(source).toContain("trimEnd()");
    expect(run.result?.terminal.commit).toMatch(/^[0-9a-f]{40}$/);
    // The last failed attempt still leaves its lesson and the remaining steps behind.
    const lessons = await run.store.readJsonl("lessons.jsonl", Lesson);
    expect(lessons.map((l) => l.attempt_id)).toEqual(["attempt-001"]);
    expect(lessons[0]?.failed_verifiers).toContain("seam");
    expect(readFileSync(join(run.store.dir, "steps_to_complete_the_task.md"), "utf8")).toMatch(
      /seam verifier pass/,
    );
  });

  it("leaves the user's checkout untouched", async () => {
    const { createFixtureRepo } = await import("../../src/fixtures/create-fixture-repo.js");
    const repo = createFixtureRepo("csv-import");
    const status = () => git(repo, "status", "--porcelain", "--untracked-files=all");
    const before = {
      status: status(),
      head: git(repo, "rev-parse", "HEAD"),
      branch: git(repo, "branch", "--show-current"),
    };
    const run = await runLane({ repo, coder: NEAR_MISS_CODER });
    expect(run.result?.terminal.verdict).toBe("completed");
    expect({
      status: status(),
      head: git(repo, "rev-parse", "HEAD"),
      branch: git(repo, "branch", "--show-current"),
    }).toEqual(before);
    expect(readFileSync(join(repo, ".devflow", ".gitignore"), "utf8").trim()).toBe("*");
  });

  it("writes node events with durations to events.jsonl", async () => {
    const run = await runLane({ coder: coderScript(CORRECT_FIX) });
    const ends = run.events.filter((e) => e.phase === "end").map((e) => e.node);
    expect(ends).toEqual(["frame", "observe", "readiness", "code", "verify", "gate", "commit"]);
    const onDisk = readFileSync(join(run.store.dir, "events.jsonl"), "utf8").trim().split("\n");
    expect(onDisk).toHaveLength(run.events.length);
    const frame = run.events.find((e) => e.node === "frame" && e.phase === "end");
    expect(frame?.tokens).toBeGreaterThan(0);
  });
});

describe("a coder that commits by itself", () => {
  // Was: the coder's commit was kept on the user's devflow/<id> under devflow's. Since ADR 0025 the
  // coder commits in its own checkout (a repository of its own); devflow commits the verified
  // tree on the user's branch, so the fix completes and the coder's commit is reported, not kept.
  it("still completes: the coder's commit is reported, devflow commits the verified tree", async () => {
    const committing = `
      ${CORRECT_FIX}
      import { execFileSync } from "node:child_process";
      execFileSync("git", ["-c", "user.name=coder", "-c", "user.email=coder@example.com", "commit", "-qam", "coder: trim emails"]);
    `;
    const run = await runLane({ coder: coderScript(committing) });
    expect(run.result?.terminal.verdict).toBe("completed");
    const report = await run.store.readAttemptJson("attempt-001", "coder_report.json", CoderReport);
    expect(report?.coder_commits).toHaveLength(1);
    expect(report?.changed_files).toContain("src/csv-import.js");
    const log = git(run.repo, "log", "--format=%s", `main..devflow/${TASK_ID}`).trim().split("\n");
    expect(log).toEqual([expect.stringMatching(/^devflow\(trim-emails\)/)]);
    expect(git(run.repo, "diff", "--name-only", "main", `devflow/${TASK_ID}`)).toContain("src/csv-import.js");
    expect(run.result?.terminal.reason).toMatch(
      /the coder's 1 own commit\(s\) are folded into devflow's commit/,
    );
  });

  /**
   * issue 11 (per-attempt cost): the code node read HEAD before the coder ran and `log
   * <before>..HEAD` after it, and commit asked `log <base>..HEAD` once more. Fix: one `git log` of
   * the task ref from the base after each run (taskBranchRun); an attempt's own commits are those
   * the previous run's reading (kept in the lane state) did not hold, and commit reports the last
   * reading. Pinned: each attempt reports only its own commit, the completion all of them.
   */
  it("each attempt reports only its own commits; the completion reports all of them", async () => {
    const committing = `
      import { execFileSync } from "node:child_process";
      import { readFileSync, writeFileSync } from "node:fs";
      const repair = readFileSync(process.env.DEVFLOW_PROMPT_FILE, "utf8").includes("Known errors from prior attempts");
      const f = "src/csv-import.js";
      const source = readFileSync(f, "utf8");
      writeFileSync(f, repair
        ? source.replace("if (!EMAIL.test(row.email))", "if (!EMAIL.test(row.email.trim()))")
        : source + "// looked at the email check\\n");
      execFileSync("git", ["-c", "user.name=coder", "-c", "user.email=coder@example.com", "commit", "-qam", repair ? "coder: fix" : "coder: note"]);
    `;
    const run = await runLane({ coder: coderScript(committing) });
    expect(run.result?.terminal.verdict).toBe("completed");
    const own = async (attempt: string) =>
      (await run.store.readAttemptJson(attempt, "coder_report.json", CoderReport))?.coder_commits ?? [];
    const [first, second] = [await own("attempt-001"), await own("attempt-002")];
    expect(first).toHaveLength(1);
    expect(second).toHaveLength(1);
    expect(second).not.toEqual(first);
    expect(run.result?.terminal.reason).toMatch(
      /the coder's 2 own commit\(s\) are folded into devflow's commit/,
    );
  });
});
