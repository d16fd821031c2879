import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { groupIsAlive, processIsRunning, terminateGroup } from "./process-group.js";

describe("process groups", () => {
  it("see a running process and its group, and not after the group is terminated", async () => {
    const child = spawn("/bin/sh", ["-c", "sleep 300 & wait"], { detached: true, stdio: "ignore" });
    const exited = once(child, "exit");
    const pid = child.pid;
    if (pid === undefined) throw new Error("spawn failed");
    expect(processIsRunning(pid)).toBe(true);
    expect(groupIsAlive(pid)).toBe(true);
    expect(await terminateGroup(pid, 2000)).toBe("SIGTERM");
    await exited;
    expect(processIsRunning(pid)).toBe(false);
    expect(groupIsAlive(pid)).toBe(false);
    expect(await terminateGroup(pid, 2000)).toBeNull();
  });

  it("counts a zombie as not running, though kill(pid, 0) still finds it", async () => {
    // `sleep 0.2` exits soon after its parent has exec'd into a sleep that never reaps it.
    const child = spawn("/bin/sh", ["-c", "sleep 0.2 & echo $!; exec sleep 300"], {
      detached: true,
      stdio: ["ignore", "pipe", "ignore"],
    });
    const pgid = child.pid;
    if (pgid === undefined) throw new Error("spawn failed");
    const [chunk] = await once(child.stdout, "data");
    const zombie = Number(String(chunk).trim());
    try {
      let state = "";
      for (let i = 0; i < 200 && state !== "Z"; i++) {
        await sleep(25);
        const stat = readFileSync(`/proc/${zombie}/stat`, "utf8");
        state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0] ?? "";
      }
      expect(state).toBe("Z");
      expect(() => process.kill(zombie, 0)).not.toThrow();
      expect(processIsRunning(zombie)).toBe(false);
      expect(groupIsAlive(pgid)).toBe(true);
    } finally {
      await terminateGroup(pgid, 2000);
    }
    expect(groupIsAlive(pgid)).toBe(false);
  });
});
