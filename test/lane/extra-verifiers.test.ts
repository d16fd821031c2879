import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Lesson, VerifierEnvelope } from "../../src/artifacts/schemas/index.js";
import {
  CORRECT_FIX,
  coderScript,
  demoCassette,
  needsAnswersCassette,
  runLane,
  TASK_ID,
} from "../support/lane-harness.js";

/*
 * Extra verifiers (ADR 0056): the requester's scripts (a ticket's `## Verification` blocks) run by
 * verify after seam and regression, confined in the verification checkout at the snapshot, and
 * judged by the gate. Real repo, real processes, replayed model, adversarial `command:` coders.
 */

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" });

/** Rejects an email with a space inside it: a careless fix that strips every space lets it through. */
const INNER_SPACE_CHECK = {
  name: "inner spaces stay invalid",
  script: `node --input-type=module -e '
const m = await import("./src/csv-import.js");
if (m.validateRow({ name: "A", email: "a b@x.io" }) === null) { console.error("BLOCK-FAILED: an email with an inner space was accepted"); process.exit(1); }
console.log("inner space still rejected");'`,
};

/** Strips every whitespace: the seam (spaces around the email) goes green, the inner-space check does not. */
const CARELESS_FIX = `
import { readFileSync, writeFileSync } from "node:fs";
const f = "src/csv-import.js";
writeFileSync(f, readFileSync(f, "utf8").replace("if (!EMAIL.test(row.email))", 'if (!EMAIL.test(row.email.replace(/\\\\s/g, "")))'));
console.log("Emails with spaces are accepted now.");
`;

/** Careless on the first attempt, the real fix once the careless one is there. */
const CARELESS_THEN_CORRECT = `
import { readFileSync, writeFileSync } from "node:fs";
const f = "src/csv-import.js";
const src = readFileSync(f, "utf8");
writeFileSync(f, src.includes("replace(/")
  ? src.replace(/if \\(!EMAIL\\.test\\(.*\\)\\)/, "if (!EMAIL.test(row.email.trim()))")
  : src.replace("if (!EMAIL.test(row.email))", 'if (!EMAIL.test(row.email.replace(/\\\\s/g, "")))'));
console.log("done");
`;

async function extraEnvelope(run: Awaited<ReturnType<typeof runLane>>, attempt: string) {
  return run.store.readAttemptJson(attempt, "verifiers/extra_verifiers.json", VerifierEnvelope);
}

describe("extra verifiers (a ticket's Verification blocks) in the iterate lane", () => {
  it("a block that passes: completed, its envelope recorded, the task artifact lists it", async () => {
    const run = await runLane({
      coder: coderScript(CORRECT_FIX),
      extra: { extraVerifiers: [INNER_SPACE_CHECK] },
    });
    expect(run.error).toBeNull();
    expect(run.result?.terminal.verdict).toBe("completed");
    const envelope = await extraEnvelope(run, "attempt-001");
    expect(envelope?.overall_result).toBe("pass");
    if (envelope?.verifier !== "extra_verifiers") throw new Error("no extra_verifiers envelope");
    expect(envelope.native_payload.runs).toMatchObject([
      { name: INNER_SPACE_CHECK.name, result: "pass", exit_code: 0 },
    ]);
    const log = readFileSync(join(run.store.attemptDir("attempt-001"), "verifiers/extra-01.log"), "utf8");
    expect(log).toContain("inner space still rejected");
    expect(run.result?.terminal.gate?.checks).toContainEqual({
      verifier: "extra_verifiers",
      overall_result: "pass",
    });
    expect((await run.store.read("task_artifact"))?.extra_verifiers).toEqual([INNER_SPACE_CHECK]);
  });

  it("a block that fails on a careless fix blocks completed; the repair context names the block", async () => {
    const cassette = demoCassette();
    const run = await runLane({
      cassette,
      coder: coderScript(CARELESS_THEN_CORRECT),
      extra: { extraVerifiers: [INNER_SPACE_CHECK] },
    });
    expect(run.error).toBeNull();
    const iterator = await run.store.read("iterator_run");
    expect(iterator?.attempts.map((a) => [a.attempt_id, a.verdict])).toEqual([
      ["attempt-001", "fail"],
      ["attempt-002", "pass"],
    ]);
    // The seam went green on the careless fix: only the block stood in the way.
    const seam1 = await run.store.readAttemptJson("attempt-001", "verifiers/seam.json", VerifierEnvelope);
    expect(seam1?.overall_result).toBe("pass");
    const failed = await extraEnvelope(run, "attempt-001");
    expect(failed?.overall_result).toBe("fail");
    expect(failed?.summary).toContain(`"${INNER_SPACE_CHECK.name}" failed (exit 1)`);
    expect(failed?.summary).toContain("BLOCK-FAILED");
    expect(iterator?.attempts[0]?.gate?.reasons.join("\n")).toContain(INNER_SPACE_CHECK.name);
    const lessons = await run.store.readJsonl("lessons.jsonl", Lesson);
    expect(lessons[0]?.failed_verifiers).toContain("extra_verifiers");
    expect((await extraEnvelope(run, "attempt-002"))?.overall_result).toBe("pass");
    expect(run.result?.terminal.verdict).toBe("completed");
  });

  it("a block reading what the coder left outside the snapshot sees the snapshot, not the coder's checkout", async () => {
    // The coder's tracked change is careless; beside it, an ignored file the block reads says "ok".
    const hostile = `
      ${CARELESS_FIX}
      writeFileSync(".gitignore", "verdict.txt\\n");
      writeFileSync("verdict.txt", "ok\\n");
    `;
    const block = { name: "verdict file says ok", script: "grep -qx ok verdict.txt" };
    const run = await runLane({
      coder: coderScript(hostile),
      lane: { maxJudgeAttempts: 1 },
      extra: { extraVerifiers: [block] },
    });
    expect(run.result?.terminal.verdict).not.toBe("completed");
    const envelope = await extraEnvelope(run, "attempt-001");
    expect(envelope?.overall_result).toBe("fail");
  });

  it("a process the block's run leaves behind cannot change the result after the block", async () => {
    // The coder's code, loaded by the block, starts a detached process that waits and then rewrites
    // the tracked source: the run's processes are ended and a tracked write is tamper.
    const hostile = `
      ${CORRECT_FIX}
      writeFileSync("src/late.js", ${JSON.stringify(`import { spawn } from "node:child_process";
spawn("sh", ["-c", "sleep 0.3; echo broken > src/csv-import.js; sleep 30"], { detached: true, stdio: "ignore" }).unref();
`)});
    `;
    const block = {
      name: "loads the late writer",
      script:
        "node --input-type=module -e 'await import(\"./src/late.js\")'; sleep 1; cat src/csv-import.js >/dev/null",
    };
    const run = await runLane({
      coder: coderScript(hostile),
      lane: { maxJudgeAttempts: 1 },
      extra: { extraVerifiers: [block] },
    });
    expect(run.result?.terminal.verdict).not.toBe("completed");
    const envelope = await extraEnvelope(run, "attempt-001");
    expect(envelope?.overall_result).toBe("error");
    expect(envelope?.summary).toMatch(/tamper: the test run changed tracked file src\/csv-import\.js/);
    // Nothing the run started is still alive.
    const alive = execFileSync("ps", ["-eo", "args"], { encoding: "utf8" });
    expect(alive).not.toContain("echo broken > src/csv-import.js");
  });

  it("a block that hits its time limit fails the attempt, reported with the limit", async () => {
    const run = await runLane({
      coder: coderScript(CORRECT_FIX),
      lane: { maxJudgeAttempts: 1, extraVerifierTimeoutMs: 2_000 },
      extra: { extraVerifiers: [{ name: "hangs", script: "sleep 30" }] },
    });
    expect(run.result?.terminal.verdict).toBe("exhausted");
    const envelope = await extraEnvelope(run, "attempt-001");
    expect(envelope?.overall_result).toBe("error");
    if (envelope?.verifier !== "extra_verifiers") throw new Error("no extra_verifiers envelope");
    expect(envelope.native_payload.runs[0]).toMatchObject({
      name: "hangs",
      result: "error",
      timed_out: true,
    });
    expect(envelope.summary).toContain('"hangs" gave no verdict: timed out after 2s');
    expect(envelope.summary).toContain("extraVerifierTimeoutMs");
    expect(run.result?.terminal.reason).toContain("extraVerifierTimeoutMs");
    // The attempt's unverified work is on the branch, labelled as such: never a completed commit.
    expect(git(run.repo, "log", "-1", "--format=%s", `devflow/${TASK_ID}`)).toContain("unverified work");
  });

  it("a task resumed without them (here: after a question) still runs the extra verifiers it started with", async () => {
    // lane.resume(taskId, answer) passes no extraVerifiers: they must come from the checkpoint.
    const run = await runLane({
      cassette: needsAnswersCassette("Which column holds the email?"),
      coder: coderScript(CORRECT_FIX),
      extra: { extraVerifiers: [INNER_SPACE_CHECK] },
      onQuestions: async () => "the email column",
    });
    expect(run.error).toBeNull();
    expect(run.result?.terminal.verdict).toBe("completed");
    expect((await extraEnvelope(run, "attempt-001"))?.overall_result).toBe("pass");
  });

  it("more blocks than maxExtraVerifiers are refused before any model call", async () => {
    const run = await runLane({
      coder: coderScript(CORRECT_FIX),
      lane: { maxExtraVerifiers: 1 },
      extra: {
        extraVerifiers: [
          { name: "one", script: "true" },
          { name: "two", script: "true" },
        ],
      },
    });
    expect(run.result).toBeNull();
    expect(String(run.error)).toMatch(/2 extra verifiers given, more than the limit of 1/);
    expect(await run.store.read("task_artifact")).toBeNull();
  });
});
