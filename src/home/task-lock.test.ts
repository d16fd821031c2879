import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { removeDir, tempDir } from "../../test/support/test-repo.js";
import { acquireTaskLock } from "./task-lock.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDir(dir);
});

function artifactDir(taskId: string): string {
  const root = tempDir();
  dirs.push(root);
  return join(root, ".devflow", "iterate", taskId);
}

describe("acquireTaskLock", () => {
  it("refuses a second run on the same task while the first holds the lock", async () => {
    const dir = artifactDir("add-login");
    const release = await acquireTaskLock(dir);

    const error = await acquireTaskLock(dir).catch((caught: unknown) => caught);

    expect(error).toMatchObject({ code: "TASK_LOCKED", category: "workspace" });
    expect((error as Error).message).toBe(
      `another devflow run is working on task add-login (pid ${process.pid} on ${hostname()}, lock ${join(dir, "run.lock")}); wait for it to finish`,
    );
    await release();
    await release();
    const again = await acquireTaskLock(dir);
    await again();
    expect(existsSync(join(dir, "run.lock"))).toBe(false);
  });

  it("takes over the stale lock of a crashed run", async () => {
    const dir = artifactDir("crashed");
    const lock = join(dir, "run.lock");
    mkdirSync(lock, { recursive: true });
    const longAgo = new Date(Date.now() - 10 * 60_000);
    utimesSync(lock, longAgo, longAgo);

    const release = await acquireTaskLock(dir);

    await release();
  });

  it("locks different tasks independently", async () => {
    const releaseA = await acquireTaskLock(artifactDir("a"));
    const releaseB = await acquireTaskLock(artifactDir("b"));
    await releaseA();
    await releaseB();
  });
});

describe("acquireTaskLock after a crash", () => {
  it("takes over at once a fresh lock whose owner process is gone (resume right after SIGKILL)", async () => {
    const dir = artifactDir("sigkilled");
    mkdirSync(join(dir, "run.lock"), { recursive: true });
    const dead = spawnSync("true").pid;
    writeFileSync(join(dir, "run.owner"), JSON.stringify({ pid: dead, host: hostname() }));
    const release = await acquireTaskLock(dir);
    await release();
  });

  it("still refuses a fresh lock whose owner is alive", async () => {
    const dir = artifactDir("alive");
    mkdirSync(join(dir, "run.lock"), { recursive: true });
    writeFileSync(join(dir, "run.owner"), JSON.stringify({ pid: process.pid, host: hostname() }));
    await expect(acquireTaskLock(dir)).rejects.toThrow(/another devflow run is working on task alive/);
  });
});
