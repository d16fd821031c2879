/**
 * Attack (hostile review, issue 9): the coder applies the correct fix and adds code to the module
 * the seam loads that, when the seam runs, starts a detached (`setsid`) node process. It waits until
 * verification is done, then puts the bug back, adds an out-of-scope file, and later writes into
 * the user's checkout. Observed before the fix: `completed`, the committed tree held the sabotage
 * and the out-of-scope file, and the process outlived devflow.
 *
 * Cause: (1) seam and regression commands ran without the confinement coders get (ADR 0020): no PID
 * namespace, no run marker, so a process started by the code under test outlived verification;
 * (2) commit staged the live worktree (`git add --all`) instead of the tree that was verified.
 *
 * Fix (ADR 0023): (1) every verification command (seam on base, seam, regression, baseline) runs
 * confined with its own run marker; marked leftovers are ended after it returns, and one that
 * survives makes the verifier an `error` (`process_survived`). (2) commit writes exactly
 * `state.attemptTree` (the snapshot verify judged) with `commit-tree`; if the worktree differs from
 * it at commit time, that is a `tamper` finding and the run ends `blocked`.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { resetContainmentProbe } from "../../src/process/containment.js";
import { processIsRunning } from "../../src/process/process-group.js";
import { CORRECT_FIX, coderScript, runLane, TASK_ID, tempDir } from "../support/lane-harness.js";

interface DaemonOptions {
  flag: string;
  pidFile: string;
  /** Appended to every 50 ms while the daemon lives (its pid may be namespace-local: ADR 0031). */
  heartbeat: string;
  /** The envelope whose appearance means "verification is done". */
  trigger: "critic.json" | "seam.json";
  /** Start the daemon with an empty environment (no run marker to find it by). */
  clearEnv: boolean;
  /** Also write into the user's checkout 1.5 s after the sabotage. */
  writeUserCheckout: boolean;
}

function coder(o: DaemonOptions): string {
  const daemon = `
    const fs = require("node:fs"), path = require("node:path");
    fs.writeFileSync(${JSON.stringify(o.pidFile)}, fs.readlinkSync("/proc/self"));
    setInterval(() => fs.appendFileSync(${JSON.stringify(o.heartbeat)}, "."), 50);
    // The seam runs in the verification checkout (.devflow/verify/<id>, ADR 0024); the daemon goes
    // for the coder's checkout, the tree devflow re-snapshots before it commits.
    const user = path.resolve(process.cwd(), "..", "..", "..");
    const wt = path.join(user, ".devflow", "worktrees", ${JSON.stringify(TASK_ID)});
    const done = path.join(user, ".devflow", "iterate", ${JSON.stringify(TASK_ID)}, "attempts", "attempt-001", "verifiers", ${JSON.stringify(o.trigger)});
    const t = setInterval(() => {
      if (!fs.existsSync(done)) return;
      clearInterval(t);
      const f = path.join(wt, "src", "csv-import.js");
      fs.writeFileSync(f, "// sabotage: unverified\\n" + fs.readFileSync(f, "utf8").split("EMAIL.test(row.email.trim())").join("EMAIL.test(row.email)"));
      fs.writeFileSync(path.join(wt, "evil.txt"), "out of scope\\n");
      if (${o.writeUserCheckout}) setTimeout(() => fs.writeFileSync(path.join(user, "pwned.txt"), "after the fingerprint\\n"), 1500);
    }, 1);
    setTimeout(() => process.exit(0), 30000);`;
  const env = o.clearEnv ? ", env: {}" : "";
  const prelude = `import { spawn as __spawn } from "node:child_process";
import { existsSync as __exists, writeFileSync as __write } from "node:fs";
if (!__exists(${JSON.stringify(o.flag)})) {
  __write(${JSON.stringify(o.flag)}, "");
  __spawn(process.execPath, ["-e", ${JSON.stringify(daemon)}], { detached: true, stdio: "ignore"${env} }).unref();
}
`;
  return `${CORRECT_FIX}
const src = readFileSync(f, "utf8");
writeFileSync(f, ${JSON.stringify(prelude)} + src);
`;
}

const pids: number[] = [];
afterEach(() => {
  for (const pid of pids.splice(0)) if (pid > 1 && processIsRunning(pid)) process.kill(pid, "SIGKILL");
  delete process.env.DEVFLOW_NO_PID_NAMESPACE;
  resetContainmentProbe();
});

function committed(repo: string): { file: string; files: string[] } {
  const git = (...a: string[]) => execFileSync("git", a, { cwd: repo, encoding: "utf8" });
  return {
    file: git("show", `devflow/${TASK_ID}:src/csv-import.js`),
    files: git("ls-tree", "-r", "--name-only", `devflow/${TASK_ID}`).split("\n"),
  };
}

describe("a process started by the code under test during verification", () => {
  it("is ended with the seam run: it cannot rewrite the fix, add files or touch the user's checkout", async () => {
    const dir = tempDir("devflow-seam-daemon-");
    const o: DaemonOptions = {
      flag: join(dir, "spawned"),
      pidFile: join(dir, "daemon.pid"),
      heartbeat: join(dir, "heartbeat"),
      trigger: "critic.json",
      clearEnv: false,
      writeUserCheckout: true,
    };
    const run = await runLane({ coder: coderScript(coder(o)), lane: { maxJudgeAttempts: 1 } });
    expect(run.error).toBeNull();
    // The seam really loaded the module and started the daemon (in a PID namespace it may be
    // killed before it even writes its pid). With the seam's own /proc (mount namespace, ADR 0031)
    // the pid it reads for itself is namespace-local, so whether it lives is read from its heartbeat.
    expect(existsSync(o.flag)).toBe(true);
    const beats = () => (existsSync(o.heartbeat) ? readFileSync(o.heartbeat, "utf8").length : 0);
    const before = beats();
    await sleep(300);
    expect(beats()).toBe(before);
    const { file, files } = committed(run.repo);
    await sleep(2500);
    expect(existsSync(join(run.repo, "pwned.txt"))).toBe(false);
    // The legitimate fix still completes; what is committed is the verified fix only.
    expect(run.result?.terminal.verdict, run.result?.terminal.reason).toBe("completed");
    expect(file.startsWith("// sabotage")).toBe(false); // the daemon prepends this line
    expect(file).toContain("EMAIL.test(row.email.trim())");
    expect(files).not.toContain("evil.txt");
  }, 180_000);

  it("that escapes confinement (no PID namespace, marker cleared) cannot get its later edits committed", async () => {
    // Without a PID namespace, a process that empties its environment escapes the marker scan
    // (ADR 0020's documented gap); the commit must still be exactly the verified tree.
    process.env.DEVFLOW_NO_PID_NAMESPACE = "1";
    resetContainmentProbe();
    const dir = tempDir("devflow-seam-daemon-escaped-");
    const o: DaemonOptions = {
      flag: join(dir, "spawned"),
      pidFile: join(dir, "daemon.pid"),
      heartbeat: join(dir, "heartbeat"),
      trigger: "seam.json",
      clearEnv: true,
      writeUserCheckout: false,
    };
    const run = await runLane({ coder: coderScript(coder(o)), lane: { maxJudgeAttempts: 1 } });
    expect(run.error).toBeNull();
    pids.push(Number(readFileSync(o.pidFile, "utf8")));
    expect(run.result?.terminal.verdict).toBe("blocked");
    expect(run.result?.terminal.reason).toMatch(
      /^tamper: the worktree changed after attempt-001 was verified/,
    );
    expect(run.result?.terminal.reason).toContain("evil.txt");
    const { file, files } = committed(run.repo);
    expect(file.startsWith("// sabotage")).toBe(false); // the daemon prepends this line
    expect(files).not.toContain("evil.txt");
  }, 180_000);
});
