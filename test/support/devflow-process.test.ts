import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/util/paths.js";
import {
  HANG,
  markedCoder,
  startDaemon,
  submitChangeTicket,
  waitFor,
  writeWorkerConfig,
} from "./daemon-harness.js";
import { tempDir } from "./lane-harness.js";
import { liveGroupMembers, processesMarkedBy } from "./leftover-processes.js";
import { queueSandbox } from "./queue-harness.js";

/**
 * Regression: `devflow daemon` processes outlived vitest (4 found after session 15's run).
 * Cause: startDevflow spawns bin/devflow.js detached, in a process group of its own, and only the
 * test itself stopped it (`daemon.child.kill` at its end); a test that threw or timed out first
 * left the daemon, and the coder it ran, behind. Fix: startDevflow hands each group to
 * test-owned-groups.ts, which SIGKILLs it (and what its leader confined) when the test finishes,
 * and to group-reaper.ts, which kills what is left when the test process itself ends.
 * The first two tests fail on purpose (`it.fails`) with a daemon running; the third checks that
 * nothing of those daemons is alive once they ended. Needs `npm run build`.
 */
const daemons: number[] = [];
/** How far each failing test got, for the message if one failed before its daemon ran. */
const reached: string[] = [];
const boxes = [queueSandbox(), queueSandbox()];
const [busy, idle] = boxes as [ReturnType<typeof queueSandbox>, ReturnType<typeof queueSandbox>];

describe("a devflow process group dies with the test that started it", () => {
  it.fails("a test that throws while its daemon runs a hanging coder", async () => {
    writeWorkerConfig(busy);
    const started = join(tempDir(), "coder-started");
    await submitChangeTicket(busy, "hang", markedCoder(started, HANG), { maxIterations: 1 });
    const daemon = startDaemon(busy);
    const pid = daemon.child.pid as number;
    reached.push(`busy daemon ${pid} started`);
    await waitFor("the coder to start", () => existsSync(started) || daemon.child.exitCode !== null, 120_000);
    reached.push(`coder started; daemon exit code ${daemon.child.exitCode}; ${daemon.stderr()}`);
    // The coder runs outside the daemon's group, carrying the daemon's run marker.
    expect(processesMarkedBy(pid).length).toBeGreaterThan(0);
    daemons.push(pid);
    throw new Error("this test fails before it stops its daemon");
  }, 180_000);

  it.fails("a test that times out while its daemon runs", async () => {
    writeWorkerConfig(idle);
    const daemon = startDaemon(idle);
    await waitFor("the daemon to start", () => daemon.stderr().includes("working on"), 60_000);
    daemons.push(daemon.child.pid as number);
    await new Promise(() => {});
  }, 8_000);

  it("neither daemon, nor the coder the first one ran, outlived its test", () => {
    expect(daemons, reached.join("\n")).toHaveLength(2);
    for (const pid of daemons) {
      expect(liveGroupMembers(pid), `group ${pid}`).toEqual([]);
      expect(processesMarkedBy(pid), `confined by ${pid}`).toEqual([]);
    }
    for (const box of boxes) box.cleanup();
  });

  it("a group registered with the reaper dies when the test process is SIGKILLed; a forgotten one is left alone", async () => {
    const script = join(PACKAGE_ROOT, "test", "support", "reaper-victim.ts");
    const victim = spawn(process.execPath, ["--import", "tsx", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    victim.stdout.on("data", (d) => (out += d));
    await waitFor("the victim to start its group", () => /^\d+ \d+\n/.test(out), 60_000);
    const [reaped, forgotten] = out.trim().split(" ").map(Number) as [number, number];
    expect(liveGroupMembers(reaped).length).toBeGreaterThan(0);
    expect(liveGroupMembers(forgotten).length).toBeGreaterThan(0);
    victim.kill("SIGKILL");
    try {
      await waitFor("the reaper to end the group", () => liveGroupMembers(reaped).length === 0, 10_000);
      // A group forgotten (ended by its test) is not killed: its pgid may belong to another by then.
      expect(liveGroupMembers(forgotten).length).toBeGreaterThan(0);
    } finally {
      for (const pgid of [reaped, forgotten]) {
        try {
          process.kill(-pgid, "SIGKILL");
        } catch {}
      }
    }
  }, 90_000);
});
