import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  markedProcessesMayLive,
  markedRunEnded,
  markedRunStarted,
  newRunMarker,
  pidNamespacePrefix,
  processesWithMarker,
  RUN_MARKER_ENV,
  resetContainmentProbe,
} from "./containment.js";
import { mountNamespaceWorks } from "./mount-namespace.js";
import { runProcess } from "./run-process.js";

/**
 * ADR 0073: after a confined run whose PID namespace ended with its first process, devflow does not
 * scan /proc for the run's marker (~1 ms per 70 processes on the machine, ~10 scans per attempt).
 * These pin the kernel fact that makes the scan pointless there, and that every other ending still
 * scans: without a namespace, after a timeout, while another run with the same marker goes on.
 * Every check of "nothing left" here reads /proc itself (processesWithMarker), never devflow's
 * bookkeeping.
 */
const withNamespace = pidNamespacePrefix() !== null && mountNamespaceWorks();
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
/** Eight setsid children that ignore SIGTERM and SIGHUP and spin, and a double-forked sleeper. */
const LEAVES_BEHIND =
  'for n in 1 2 3 4 5 6 7 8; do setsid sh -c "trap \\"\\" TERM HUP; while :; do :; done" & done; (sh -c "sleep 60 &" &); sleep 0.05; exit 0';

let dir: string;
/**
 * A confined run of `command` (a shell line) carrying `marker`, with a mount plan as coders and
 * verifier runs get (own /proc, no capabilities): only such a run can be proven (review, stop 36).
 */
const confined = (
  command: string,
  marker: string,
  limits: { timeoutMs?: number; killGraceMs?: number } = {},
) => {
  const checkout = join(dir, "repo", ".devflow", "checkout");
  mkdirSync(checkout, { recursive: true });
  return runProcess({
    command,
    shell: true,
    cwd: checkout,
    env,
    timeoutMs: 30_000,
    ...limits,
    confine: true,
    runMarker: marker,
    mounts: { readOnly: join(dir, "repo"), hide: join(dir, "repo", ".devflow"), expose: checkout },
  });
};
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "devflow-marker-proof-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("a PID namespace's first process exiting ends the whole run", () => {
  it.skipIf(!withNamespace)(
    "no marked process is left at the moment unshare returns (20 runs, busy setsid and double-forked children)",
    async () => {
      const prefix = pidNamespacePrefix() as string[];
      for (let i = 0; i < 20; i++) {
        const marker = newRunMarker();
        const child = spawn(prefix[0] as string, [...prefix.slice(1), "/bin/sh", "-c", LEAVES_BEHIND], {
          env: { ...env, [RUN_MARKER_ENV]: marker },
          stdio: "ignore",
        });
        const exit = await new Promise<number | null>((resolve) =>
          child.once("exit", (code) => resolve(code)),
        );
        expect(exit).toBe(0);
        expect(processesWithMarker(marker)).toEqual([]);
      }
    },
  );
});

describe("runProcess skips the marker scan only when the namespace proved the run ended", () => {
  it.skipIf(!withNamespace)(
    "a namespaced run that exits by itself: proven, and nothing is left",
    async () => {
      const marker = newRunMarker();
      const result = await confined(LEAVES_BEHIND, marker);
      expect(result.pidNamespace).toBe(true);
      expect(result.exitCode).toBe(0);
      expect(markedProcessesMayLive(marker)).toBe(false);
      expect(processesWithMarker(marker)).toEqual([]);
    },
  );

  it.skipIf(!withNamespace)(
    "a namespaced run stopped by its timeout is not proven (unshare may die first)",
    async () => {
      const marker = newRunMarker();
      const result = await confined(LEAVES_BEHIND.replace("exit 0", "sleep 60"), marker, {
        timeoutMs: 300,
        killGraceMs: 100,
      });
      expect(result.timedOut).toBe(true);
      expect(markedProcessesMayLive(marker)).toBe(true);
      expect(processesWithMarker(marker)).toEqual([]);
    },
  );

  it("without a PID namespace the scan runs and ends a setsid process that left the group", async () => {
    // Mutation (markedRunEnded proving every run): the escaped process survives, this fails.
    process.env.DEVFLOW_NO_PID_NAMESPACE = "1";
    resetContainmentProbe();
    try {
      const marker = newRunMarker();
      const pidFile = join(dir, "escaped.pid");
      const result = await confined(
        `setsid sh -c 'read -r p _ < /proc/self/stat; echo $p > "$0"; exec sleep 300' "${pidFile}" & sleep 0.3`,
        marker,
      );
      expect(result.pidNamespace).toBe(false);
      expect(markedProcessesMayLive(marker)).toBe(true);
      expect(result.output).toContain("left the process group were killed");
      expect(processesWithMarker(marker)).toEqual([]);
      const escaped = Number(readFileSync(pidFile, "utf8"));
      expect(processesWithMarker(marker)).not.toContain(escaped);
    } finally {
      delete process.env.DEVFLOW_NO_PID_NAMESPACE;
      resetContainmentProbe();
    }
  });

  it.skipIf(!withNamespace)("a marker stays unproven while a run carrying it is still going", async () => {
    const marker = newRunMarker();
    const running = confined("sleep 0.5", marker);
    expect(markedProcessesMayLive(marker)).toBe(true);
    await running;
    expect(markedProcessesMayLive(marker)).toBe(false);
  });

  it("a marker no run was started with may always live (scanned as before)", () => {
    expect(markedProcessesMayLive(newRunMarker())).toBe(true);
  });

  it("a run with the plain PID-namespace prefix (no own /proc) is not proven (review, stop 36)", async () => {
    // As root it could see its unshare in the host's /proc and rewrite it to fork a marked process
    // back in the host's namespace. Mutation: proving any namespaced run → this is red.
    const marker = newRunMarker();
    const result = await runProcess({
      command: "exit 0",
      shell: true,
      cwd: dir,
      env,
      timeoutMs: 30_000,
      confine: true,
      runMarker: marker,
    });
    expect(result.exitCode).toBe(0);
    expect(markedProcessesMayLive(marker)).toBe(true);
  });

  it("never forgets an unproven marker to make room (review, stop 36)", () => {
    const marker = newRunMarker();
    markedRunStarted(marker);
    markedRunEnded(marker, false);
    for (let i = 0; i < 1100; i++) {
      const other = newRunMarker();
      markedRunStarted(other);
      markedRunEnded(other, true);
    }
    markedRunStarted(marker);
    markedRunEnded(marker, true);
    expect(markedProcessesMayLive(marker)).toBe(true);
  });
});
