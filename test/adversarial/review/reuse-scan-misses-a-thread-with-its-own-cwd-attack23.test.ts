/**
 * Regression (session-23 review, review23): the claim's in-use scan (src/workspace/dir-in-use.ts,
 * ADR 0050) read only `/proc/<pid>/{cwd,root,fd}`, which are the thread-group leader's.
 *
 * Cause: a thread that calls unshare(CLONE_FS) (no privilege needed) gets its own working directory
 * and root; unshare(CLONE_FILES) its own fd table. The leftover's main thread sits outside the
 * checkout while one of its threads sits inside it, seen only at `/proc/<pid>/task/<tid>/cwd`
 * (readdir of /proc lists thread-group leaders only). The scan called the checkout unused and the
 * next task's checkout was the one the thread writes into. This holds for a fully readable
 * (dumpable) process, and as root.
 *
 * Fix: the scan reads cwd, root and fd of every thread in `/proc/<pid>/task/` (maps are shared by
 * the threads of a process, one read suffices).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { whyDirInUse } from "../../../src/workspace/dir-in-use.js";

const kids: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const kid of kids.splice(0)) kid.kill("SIGKILL");
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A python process whose main thread stays in `top` and whose second thread unshares and runs `body`. */
async function threadLeftover(top: string, body: string): Promise<ChildProcess> {
  const script = join(top, "leftover.py");
  writeFileSync(
    script,
    [
      "import ctypes, os, sys, threading, time",
      "libc = ctypes.CDLL(None, use_errno=True)",
      "d = sys.argv[1]",
      "def t():",
      ...body.split("\n").map((line) => `    ${line}`),
      "    print('in', flush=True)",
      "    time.sleep(60)",
      "threading.Thread(target=t, daemon=True).start()",
      "time.sleep(60)",
    ].join("\n"),
  );
  const kid = spawn("python3", [script, join(top, "checkout")], {
    cwd: top,
    stdio: ["ignore", "pipe", "inherit"],
  });
  kids.push(kid);
  await new Promise<void>((resolve, reject) => {
    kid.stdout?.once("data", () => resolve());
    kid.once("exit", (code) => reject(new Error(`leftover exited ${code}`)));
  });
  return kid;
}

function setup(): string {
  const top = mkdtempSync(join(tmpdir(), "devflow-attack23-thread-"));
  dirs.push(top);
  mkdirSync(join(top, "checkout"));
  writeFileSync(join(top, "checkout", "a.txt"), "a\n");
  return top;
}

describe("the claim's in-use scan and a thread with its own cwd or fd table (attack23)", () => {
  it("counts a thread whose working directory alone is inside the checkout", async () => {
    const top = setup();
    const kid = await threadLeftover(top, "assert libc.unshare(0x200) == 0\nos.chdir(d)");
    // The attack's premise: the leader's cwd is outside, the thread's inside.
    expect(readlinkSync(`/proc/${kid.pid}/cwd`)).toBe(top);
    expect(whyDirInUse(join(top, "checkout"), Date.now())).toMatch(/cwd inside/);
  });

  it("counts a thread whose own fd table alone holds a file inside the checkout", async () => {
    const top = setup();
    const kid = await threadLeftover(
      top,
      "assert libc.unshare(0x400) == 0\nf = open(os.path.join(d, 'a.txt'), 'a')",
    );
    expect(readlinkSync(`/proc/${kid.pid}/cwd`)).toBe(top);
    expect(whyDirInUse(join(top, "checkout"), Date.now())).toMatch(/fd \d+ inside/);
  });
});
