/**
 * Salvage (issue 9, ADR 0026; junco's timeout_partial). Cause: a coder killed at its timeout was
 * re-run with a longer timeout without ever looking at the tree it left, so a correct change
 * followed by a hang ended "blocked" unverified, and a wrong change followed by a hang was re-run
 * told nothing about what was wrong. Fix: once the coder's processes are all ended, a tree that
 * differs from the run's starting tree is verified like a finished run's; the record says how the
 * coder ended (coder_outcome); a failing salvaged change escalates the timeout with the verifier
 * failure as the re-run's repair context. Real repo, real processes, `command:` coders, 1–2 s timeouts.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { CoderReport, Lesson } from "../../src/artifacts/schemas/index.js";
import { resetContainmentProbe } from "../../src/process/containment.js";
import { CORRECT_FIX, coderScript, runLane, TASK_ID, tempDir } from "../support/lane-harness.js";
import { leftoverProcesses } from "../support/leftover-processes.js";

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" });

/** Never returns: the coder hangs until devflow kills it at its timeout. */
const HANG = "await new Promise(() => setInterval(() => {}, 1000));";

/** A near miss (trimEnd keeps leading spaces): the seam stays red. Idempotent on a second run. */
const WRONG_FIX = `
import { readFileSync, writeFileSync } from "node:fs";
const f = "src/csv-import.js";
writeFileSync(f, readFileSync(f, "utf8").replace("if (!EMAIL.test(row.email))", "if (!EMAIL.test(row.email.trimEnd()))"));
`;

/** A shell coder: runs the Node script, then ends the way `tail` says (sh -c runs the whole line). */
function shellCoder(script: string, tail: string): string {
  const path = join(tempDir("devflow-coder-"), "coder.mjs");
  writeFileSync(path, script);
  return `command:node ${JSON.stringify(path)}; ${tail}`;
}

describe("salvage: a coder that does not finish still gets its change verified", () => {
  it("writes the correct fix, then hangs past its timeout: completed, coder_outcome timed_out_partial", async () => {
    const run = await runLane({
      coder: coderScript(`${CORRECT_FIX}\n${HANG}`),
      lane: { maxJudgeAttempts: 1, baseTimeoutMs: 1500, maxEscalations: 1 },
    });
    expect(run.error).toBeNull();
    expect(run.result?.terminal.verdict).toBe("completed");

    const report = await run.store.readAttemptJson("attempt-001", "coder_report.json", CoderReport);
    expect(report?.status).toBe("timeout");
    expect(report?.coder_outcome).toBe("timed_out_partial");
    expect(report?.timeout_attempt).toBe(1);
    const iterator = await run.store.read("iterator_run");
    expect(iterator?.attempts.map((a) => [a.coder_status, a.coder_outcome, a.timeout_attempts])).toEqual([
      ["timeout", "timed_out_partial", 1],
    ]);
    // Not a caveat: every check ran on the change. A separate, honest fact in reason and commit.
    expect(run.result?.terminal.gate?.caveats).toEqual([]);
    expect(run.result?.terminal.reason).toMatch(
      /the coder did not finish \(stopped at its 1500 ms timeout\)/,
    );
    const message = git(run.repo, "log", "-1", "--format=%B", `devflow/${TASK_ID}`);
    expect(message).toMatch(
      /^Coder: the coder did not finish \(stopped at its 1500 ms timeout\); devflow verified the change it left\.$/m,
    );
    expect(git(run.repo, "show", `devflow/${TASK_ID}:src/csv-import.js`)).toContain("row.email.trim()");
  });

  // In a PID namespace the coder's shell is PID 1 there, which a SIGKILL from inside cannot end
  // (`kill -9 $$` is a no-op); the kill -9 case therefore runs without one, as on macOS.
  for (const [name, tail, how, noNamespace] of [
    ["kill -9 $$", "kill -9 $$", /was killed by a signal/, true],
    ["exit 137", "exit 137", /exited with code 137/, false],
  ] as const) {
    it(`writes the correct fix, then crashes (${name}): completed, coder_outcome crashed_partial`, async () => {
      const saved = process.env.DEVFLOW_NO_PID_NAMESPACE;
      if (noNamespace) process.env.DEVFLOW_NO_PID_NAMESPACE = "1";
      resetContainmentProbe();
      let run: Awaited<ReturnType<typeof runLane>>;
      try {
        run = await runLane({
          coder: shellCoder(CORRECT_FIX, tail),
          lane: { maxJudgeAttempts: 1, baseTimeoutMs: 10_000, maxEscalations: 0 },
        });
      } finally {
        if (saved === undefined) delete process.env.DEVFLOW_NO_PID_NAMESPACE;
        else process.env.DEVFLOW_NO_PID_NAMESPACE = saved;
        resetContainmentProbe();
      }
      expect(run.error).toBeNull();
      expect(run.result?.terminal.verdict).toBe("completed");
      const report = await run.store.readAttemptJson("attempt-001", "coder_report.json", CoderReport);
      expect(report?.status).toBe("error");
      expect(report?.coder_outcome).toBe("crashed_partial");
      expect(run.result?.terminal.reason).toMatch(how);
      expect(git(run.repo, "log", "-1", "--format=%B", `devflow/${TASK_ID}`)).toMatch(how);
    });
  }

  it("writes a wrong change, then hangs: not completed; the escalated re-run is told what failed", async () => {
    const run = await runLane({
      coder: coderScript(`${WRONG_FIX}\n${HANG}`),
      lane: { maxJudgeAttempts: 1, baseTimeoutMs: 1000, maxEscalations: 1 },
    });
    expect(run.error).toBeNull();
    // Run 1 timed out with the near miss: verified, seam red, escalated. Run 2 changed nothing more
    // and timed out at 2 × the base (the first escalation): escalations used up, as before.
    expect(run.result?.terminal.verdict).toBe("blocked");
    expect(run.result?.terminal.reason).toMatch(/timed out after 2000 ms .* escalation\(s\) are used up/);
    const lessons = await run.store.readJsonl("lessons.jsonl", Lesson);
    expect(lessons).toHaveLength(1);
    expect(lessons[0]?.attempt_id).toBe("attempt-001");
    expect(lessons[0]?.failed_verifiers).toContain("seam");
    expect(lessons[0]?.lesson).toMatch(
      /timed out; the change it had made so far was verified and failed: seam/,
    );
    // The re-run's prompt (same attempt, longer timeout) carries the verifier failure, not just "timed out".
    const prompt = readFileSync(join(run.store.dir, "attempts", "attempt-001", "coder_prompt.md"), "utf8");
    expect(prompt).toContain("Known errors from prior attempts");
    expect(prompt).toContain(lessons[0]?.lesson ?? "(no lesson)");
    expect(prompt).toMatch(/Make the seam verifier pass/);
    const report = await run.store.readAttemptJson("attempt-001", "coder_report.json", CoderReport);
    expect(report?.timeout_ms).toBe(2000);
    expect(report?.coder_outcome).toBe("timed_out");
    expect(existsSync(join(run.store.dir, "attempts", "attempt-001", "coder_transcript.timeout-1.log"))).toBe(
      true,
    );
  });

  it("with no escalation left, a failing salvaged change is an ordinary failed attempt (exhausted, labelled unverified)", async () => {
    const run = await runLane({
      coder: coderScript(`${WRONG_FIX}\n${HANG}`),
      lane: { maxJudgeAttempts: 1, baseTimeoutMs: 1000, maxEscalations: 0 },
    });
    expect(run.error).toBeNull();
    expect(run.result?.terminal.verdict).toBe("exhausted");
    const iterator = await run.store.read("iterator_run");
    expect(iterator?.attempts.map((a) => [a.coder_outcome, a.verdict])).toEqual([
      ["timed_out_partial", "fail"],
    ]);
    expect(git(run.repo, "log", "-1", "--format=%s", `devflow/${TASK_ID}`)).toMatch(/unverified/);
  });

  it("hangs without changing anything: not verified; each escalation k runs at (k + 1) × the base timeout", async () => {
    const run = await runLane({
      coder: coderScript(HANG),
      lane: { maxJudgeAttempts: 1, baseTimeoutMs: 700, maxEscalations: 2 },
    });
    expect(run.error).toBeNull();
    expect(run.result?.terminal.verdict).toBe("blocked");
    expect(run.result?.terminal.reason).toMatch(
      /timed out after 2100 ms .* 2 timeout escalation\(s\) are used up/,
    );
    const ends = run.events.filter((e) => e.phase === "end").map((e) => e.node);
    expect(ends.filter((n) => n === "code")).toHaveLength(3);
    expect(ends).not.toContain("verify");
    const timeouts = run.events
      .filter((e) => e.node === "code" && e.phase === "end")
      .map((e) => e.detail.timeout_ms);
    expect(timeouts).toEqual([700, 1400, 2100]);
    const report = await run.store.readAttemptJson("attempt-001", "coder_report.json", CoderReport);
    expect(report?.coder_outcome).toBe("timed_out");
    expect(report?.timeout_attempt).toBe(3);
  });

  it("a timed-out coder's setsid child is ended before the salvage is verified: its sabotage never lands", async () => {
    const pidFile = join(tempDir("devflow-bg-"), "bg.pid");
    const child = `
      const fs = require("node:fs");
      fs.writeFileSync(${JSON.stringify(pidFile)}, fs.readlinkSync("/proc/self"));
      setTimeout(() => fs.appendFileSync("src/csv-import.js", "\\nthrow new Error('sabotage');\\n"), 2500);
      setInterval(() => {}, 1000);`;
    const coder = `${CORRECT_FIX}
      import { spawn } from "node:child_process";
      spawn(process.execPath, ["-e", ${JSON.stringify(child)}], { detached: true, stdio: "ignore" }).unref();
      ${HANG}`;
    const run = await runLane({
      coder: coderScript(coder),
      lane: { maxJudgeAttempts: 1, baseTimeoutMs: 1500, maxEscalations: 0 },
    });
    expect(run.error).toBeNull();
    // The child ran (its pid file exists); it is found by the temp dir in its command line, not by
    // that pid: in the coder's PID namespace with a /proc of its own the pid is namespace-local.
    expect(Number(readFileSync(pidFile, "utf8"))).toBeGreaterThan(1);
    await new Promise((r) => setTimeout(r, 1500));
    expect(leftoverProcesses(dirname(pidFile), { marker: false })).toEqual([]);
    expect(run.result?.terminal.verdict).toBe("completed");
    const committed = git(run.repo, "show", `devflow/${TASK_ID}:src/csv-import.js`);
    expect(committed).toContain("row.email.trim()");
    expect(committed).not.toContain("sabotage");
  });
});
