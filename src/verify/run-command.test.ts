import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it, vi } from "vitest";
import { processIsRunning } from "../process/process-group.js";
import { runVerifierCommand } from "./run-command.js";

const containment = vi.hoisted(() => ({ forceSurvivor: false }));
vi.mock("../process/containment.js", async (importActual) => {
  const actual = await importActual<typeof import("../process/containment.js")>();
  return {
    ...actual,
    processesWithMarker: (marker: string) =>
      containment.forceSurvivor ? [999_999] : actual.processesWithMarker(marker),
    endMarkedProcesses: async (marker: string, waitMs?: number) =>
      containment.forceSurvivor ? [999_999] : actual.endMarkedProcesses(marker, waitMs),
    // A survivor means the run's namespace (if any) did not prove its end (ADR 0073).
    markedProcessesMayLive: (marker: string) =>
      containment.forceSurvivor ? true : actual.markedProcessesMayLive(marker),
  };
});

const dirs: string[] = [];
afterEach(() => {
  containment.forceSurvivor = false;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), "devflow-verifier-cmd-"));
  dirs.push(dir);
  return dir;
}

describe("runVerifierCommand (ADR 0023)", () => {
  it("ends a detached process the command started (setsid), before it returns", async () => {
    // The command returns once the daemon is up (not after a fixed 300 ms: every node of a
    // verification run loads devflow's assert preload, ADR 0040, and a loaded machine starts slower).
    const dir = scratch();
    const pidFile = join(dir, "daemon.pid");
    const daemon = `require("node:fs").writeFileSync(${JSON.stringify(pidFile)}, require("node:fs").readlinkSync("/proc/self")); setTimeout(() => {}, 30000);`;
    const script = `const c = require("node:child_process").spawn(process.execPath, ["-e", ${JSON.stringify(daemon)}], { detached: true, stdio: "ignore" }); c.unref(); const wait = () => { if (!require("node:fs").existsSync(${JSON.stringify(pidFile)})) setTimeout(wait, 20); }; wait();`;
    const run = await runVerifierCommand({
      command: `node -e ${JSON.stringify(script)}`,
      cwd: dir,
      timeoutMs: 20_000,
      logPath: join(dir, "log", "seam.log"),
    });
    expect(run.failure).toBeNull();
    expect(run.exitCode).toBe(0);
    const pid = Number(readFileSync(pidFile, "utf8"));
    await sleep(50);
    expect(processIsRunning(pid)).toBe(false);
  }, 30_000);

  // ADR 0074: a tool's cache under TMPDIR (tsx's) written by the coder or an earlier seam run would be
  // code loaded from outside the checkout that changed during the task. Mutation: TMPDIR not set → red.
  it("gives each run a temp dir of its own, gone once it returns", async () => {
    const dir = scratch();
    const seen = join(dir, "tmpdir.txt");
    const script = `const fs = require("node:fs"); const t = require("node:os").tmpdir(); fs.writeFileSync(${JSON.stringify(seen)}, t + "\\n" + fs.statSync(t).isDirectory());`;
    const runOnce = async () => {
      const run = await runVerifierCommand({
        command: `node -e ${JSON.stringify(script)}`,
        cwd: dir,
        timeoutMs: 20_000,
        logPath: join(dir, "log", "seam.log"),
      });
      expect(run.exitCode).toBe(0);
      const [temp, existed] = readFileSync(seen, "utf8").split("\n");
      return { temp: temp as string, existed };
    };
    const first = await runOnce();
    const second = await runOnce();
    expect(first.existed).toBe("true");
    expect(first.temp).toMatch(new RegExp(`devflow-scratch-${process.pid}-run-`));
    expect(first.temp).not.toBe(second.temp);
    expect(existsSync(first.temp)).toBe(false);
    expect(existsSync(second.temp)).toBe(false);
  }, 30_000);

  it("makes a process that cannot be ended a process_survived failure, never a verdict", async () => {
    containment.forceSurvivor = true;
    const dir = scratch();
    const run = await runVerifierCommand({
      command: "exit 0",
      cwd: dir,
      timeoutMs: 10_000,
      logPath: join(dir, "log", "seam.log"),
    });
    expect(run.exitCode).toBe(0);
    expect(run.survivors).toEqual([999_999]);
    expect(run.failure).toMatch(
      /^process_survived: process\(es\) 999999 started by `exit 0` could not be ended/,
    );
  });
});
