import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { newRunMarker, processesWithMarker, RUN_MARKER_ENV } from "./containment.js";

/**
 * The /proc marker scan (ADR 0020) reads only processes younger than devflow's own process and
 * reads each file into one shared buffer (issue 11, session 24). These pin what that cut must
 * never lose: a marked process started after devflow is found however it was started and however
 * large its environment is, and a zombie is not reported.
 */
const linux = process.platform === "linux" && existsSync("/proc/self/stat");
const uptimeSeconds = (): number => Number(readFileSync("/proc/uptime", "utf8").split(" ")[0]);
/** Whether this machine makes a time namespace with a boot clock offset inside a user namespace. */
const timeNamespaces =
  linux &&
  spawnSync("unshare", ["--user", "--map-root-user", "--time", "--boottime", "-1", "--fork", "true"])
    .status === 0;

let dir: string;
const children: ChildProcess[] = [];
const pids: number[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "devflow-containment-"));
});
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  for (const pid of pids.splice(0))
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  rmSync(dir, { recursive: true, force: true });
});

async function waitForPid(path: string): Promise<number> {
  for (let i = 0; i < 400; i++) {
    if (existsSync(path)) {
      const text = readFileSync(path, "utf8").trim();
      if (text !== "") return Number(text);
    }
    await sleep(25);
  }
  throw new Error(`${path} never appeared`);
}

describe.skipIf(!linux)("processesWithMarker", () => {
  it("finds a marked process whose environment is far larger than one read (the marker last)", async () => {
    const marker = newRunMarker();
    // 300 KiB of environment before the marker (one variable may hold at most 128 KiB): a scan
    // that read only its buffer's worth, or only the first chunk, would not see it.
    const filler = Object.fromEntries([0, 1, 2].map((i) => [`FILLER_${i}`, "x".repeat(100 * 1024)]));
    const child = spawn("sleep", ["30"], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...filler, [RUN_MARKER_ENV]: marker },
      stdio: "ignore",
    });
    children.push(child);
    await sleep(200);
    expect(processesWithMarker(marker)).toEqual([child.pid]);
  });

  it("finds a setsid grandchild that left the group, started after this process", async () => {
    const marker = newRunMarker();
    const pidFile = join(dir, "escaped.pid");
    const child = spawn(
      "/bin/sh",
      ["-c", `setsid sh -c 'read -r p _ < /proc/self/stat; echo $p > "$0"; exec sleep 30' "${pidFile}" &`],
      { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", [RUN_MARKER_ENV]: marker }, stdio: "ignore" },
    );
    children.push(child);
    const escaped = await waitForPid(pidFile);
    pids.push(escaped);
    expect(processesWithMarker(marker)).toContain(escaped);
    // Another run's marker is not this one.
    expect(processesWithMarker(newRunMarker())).toEqual([]);
  });

  // Session-25 review of the age filter: a leftover cannot look older than devflow by moving its
  // clocks. A time namespace (unprivileged through a user namespace) shifts the boot clock its
  // members read, /proc/<pid>/stat's start time included as seen from inside, but devflow reads it
  // from its own namespace, where the start time is the real one.
  it.skipIf(!timeNamespaces)(
    "finds a marked process started in a time namespace whose boot clock is set back",
    async () => {
      const marker = newRunMarker();
      const back = Math.floor(uptimeSeconds() / 2);
      const child = spawn(
        "unshare",
        ["--user", "--map-root-user", "--time", "--boottime", `-${back}`, "--fork", "sleep", "30"],
        { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", [RUN_MARKER_ENV]: marker }, stdio: "ignore" },
      );
      children.push(child);
      await sleep(300);
      const found = processesWithMarker(marker);
      // unshare itself and the sleep it forked inside the namespace.
      expect(found).toContain(child.pid);
      expect(found).toHaveLength(2);
    },
  );

  it("does not report a marked zombie (it runs no more)", async () => {
    const marker = newRunMarker();
    const pidFile = join(dir, "zombie.pid");
    // `true` gets the marker and exits; its parent execs into sleep and never reaps it.
    const parent = spawn(
      "/bin/sh",
      ["-c", `${RUN_MARKER_ENV}=${marker} /bin/sh -c 'echo $$ > "$0"' "${pidFile}" & exec sleep 30`],
      { env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, stdio: "ignore" },
    );
    children.push(parent);
    const zombie = await waitForPid(pidFile);
    for (let i = 0; i < 100; i++) {
      const state = readFileSync(`/proc/${zombie}/stat`, "utf8").split(") ")[1]?.[0];
      if (state === "Z") break;
      await sleep(20);
    }
    expect(readFileSync(`/proc/${zombie}/stat`, "utf8").split(") ")[1]?.[0]).toBe("Z");
    expect(processesWithMarker(marker)).toEqual([]);
  });
});
