/**
 * Regression: reuse-decline-throws-enotempty (CI, stop 33). Cause: when task setup declined an idle
 * checkout (a leftover of the old coder still used it), it deleted the claimed checkout with a
 * plain recursive rmSync; the leftover kept writing into it, the final rmdir failed with ENOTEMPTY
 * and setup threw instead of checking the base out afresh. Fix: removeOrSetAside renames what
 * cannot be deleted to a `.idle` claim (swept by `devflow clean` once this process is gone), so the
 * path is free whatever the writer does.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { idleClaimOwner, idleClaimPath, removeOrSetAside } from "./idle-claim.js";

const dirs: string[] = [];
const writers: ChildProcess[] = [];
afterEach(() => {
  for (const child of writers.splice(0)) if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
});

function workArea(): { idle: string; checkout: string } {
  const root = mkdtempSync(join(tmpdir(), "devflow-idle-claim-"));
  dirs.push(root);
  const idle = join(root, ".idle");
  const checkout = join(root, "task-1");
  mkdirSync(idle);
  mkdirSync(join(checkout, "src"), { recursive: true });
  for (let i = 0; i < 200; i++) writeFileSync(join(checkout, "src", `f${i}.js`), "x");
  return { idle, checkout };
}

describe("removeOrSetAside", () => {
  it("reuse-decline-throws-enotempty: a process writing into the checkout without pause leaves its path free and the rest as a claim", async () => {
    const { idle, checkout } = workArea();
    // Recreates files in its cwd as fast as it can: the walk's last rmdir meets a fresh entry.
    const writer = spawn("sh", ["-c", "while :; do : > a; : > b; mkdir -p c; : > c/d; done"], {
      cwd: checkout,
      detached: true,
      stdio: "ignore",
    });
    writers.push(writer);
    await new Promise((done) => setTimeout(done, 200));
    expect(() => removeOrSetAside(checkout, idle)).not.toThrow();
    expect(existsSync(checkout)).toBe(false);
    // Whatever is left sits under a claim name of this process, never under a task id.
    for (const name of readdirSync(idle)) expect(idleClaimOwner(name)).toBe(process.pid);
  });

  it("removes a quiet checkout outright, leaving no claim", () => {
    const { idle, checkout } = workArea();
    removeOrSetAside(checkout, idle);
    expect(existsSync(checkout)).toBe(false);
    expect(readdirSync(idle)).toEqual([]);
  });

  it("claim names carry the owner's pid and nothing else parses as one", () => {
    const name = idleClaimPath("/x/.idle").slice("/x/.idle/".length);
    expect(idleClaimOwner(name)).toBe(process.pid);
    for (const other of ["task-1", ".clean-12-xyz", ".clean--abcdefabcdef", "clean-1-abcdefabcdef"])
      expect(idleClaimOwner(other)).toBeNull();
  });
});
