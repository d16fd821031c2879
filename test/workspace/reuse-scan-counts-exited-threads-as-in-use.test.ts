/**
 * Regressions (session 24) of the claim's in-use scan (src/workspace/dir-in-use.ts, ADR 0050),
 * both from threads that have exited.
 *
 * 1. reuse-scan-counts-an-unreaped-zombie-as-in-use. Cause: the kernel gives the /proc entries of a
 *    task without memory (a zombie waiting for its parent's wait(), or one mid-exit) to root, so as
 *    an ordinary user its `fd` folder answers EACCES like a non-dumpable process's, and a zombie of
 *    devflow's uid started after the old task began counted as "may be inside" the checkout. A
 *    zombie runs no code and holds no files, cwd or mappings. Seen in CI: attack18's test killed
 *    its squatter, the next test's scan ran before the kill was reaped and named that pid. Fix:
 *    threads in state Z or X are skipped.
 * 2. reuse-scan-misses-a-mapping-when-the-main-thread-exited. Cause: the scan read mappings from
 *    `/proc/<pid>/maps`, which is the leader's view; once the main thread calls pthread_exit while
 *    the others run, the leader is a zombie and that file is empty, so a leftover mapping a
 *    checkout file (MAP_SHARED, fd closed, cwd elsewhere) was unseen even as root. Fix: the maps of
 *    a live thread (the threads of a process share one address space).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { chownSync, readFileSync, rmSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { whyDirInUse } from "../../src/workspace/dir-in-use.js";
import {
  asUid,
  canDropToAnotherUid,
  killAndReap,
  scanAsUid,
  scanTarget,
  unusedUid,
} from "../support/scan-as-user.js";

const kids: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await killAndReap(kids);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A top dir readable by every uid with an empty `checkout` in it. */
function setup(): { top: string; checkout: string } {
  return scanTarget("devflow-exited-threads-", dirs);
}

/** Waits for the kid's first line of output (its "ready"); rejects if it exits first. */
function ready(kid: ChildProcess): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    kid.stdout?.once("data", () => resolve());
    kid.once("exit", (code) => reject(new Error(`exited ${code} before it was ready`)));
  });
}

/** The state letter of task `tid` of `pid` (R, S, Z, …). */
const stateOf = (pid: number, tid: number = pid): string =>
  /^State:\s+(\S)/m.exec(readFileSync(`/proc/${pid}/task/${tid}/status`, "utf8"))?.[1] ?? "?";

const UID = unusedUid(4);

describe.runIf(canDropToAnotherUid())("the in-use scan as an ordinary user and a zombie", () => {
  it("reuse-scan-counts-an-unreaped-zombie-as-in-use: a zombie of devflow's uid does not count", async () => {
    const { top, checkout } = setup();
    chownSync(checkout, UID, UID);
    const began = Date.now();
    // A parent of devflow's uid that never reaps (python installs no SIGCHLD handler): its child
    // exits at once and stays a zombie; the parent itself sits outside the checkout. (A shell's
    // background job does not do: the shell may reap it before it execs, as it did in CI.)
    const parent = spawn(
      "setpriv",
      [
        ...asUid(UID),
        "env", // the system's python: PATH's may be a shim under root's home
        "-i",
        "python3",
        "-c",
        "import os, sys, time\nos.chdir(sys.argv[1])\npid = os.fork()\nif pid == 0: os._exit(0)\nprint(pid, flush=True)\ntime.sleep(60)",
        top,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    kids.push(parent);
    const zombie = await new Promise<number>((resolve, reject) => {
      parent.stdout?.once("data", (line: Buffer) => resolve(Number(String(line).trim())));
      parent.once("exit", (code) => reject(new Error(`exited ${code} before it forked`)));
    });
    for (let i = 0; i < 250 && stateOf(zombie) !== "Z"; i++) await new Promise((r) => setTimeout(r, 20));
    expect(stateOf(zombie)).toBe("Z"); // the premise: a zombie of that uid, started after `began`
    expect(scanAsUid(UID, checkout, began)).toBeNull();
  }, 20_000);
});

describe("the in-use scan and a process whose main thread has exited", () => {
  it("reuse-scan-misses-a-mapping-when-the-main-thread-exited: a live thread's mapping of a checkout file counts", async () => {
    const { top, checkout } = setup();
    // Map a checkout file shared and writable (libc's mmap: Python's mmap keeps a dup of the fd),
    // close it, leave the checkout, start a thread, and end the main thread (pthread_exit: the
    // process lives on in the other thread).
    const script = [
      "import ctypes, os, sys, threading, time",
      "libc = ctypes.CDLL(None)",
      "libc.mmap.restype = ctypes.c_void_p",
      "libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]",
      "fd = os.open(os.path.join(sys.argv[1], 'a.bin'), os.O_RDWR)",
      "assert libc.mmap(None, 4096, 3, 1, fd, 0) not in (None, ctypes.c_void_p(-1).value)  # PROT_READ|WRITE, MAP_SHARED",
      "os.close(fd)",
      "os.chdir(sys.argv[2])",
      "threading.Thread(target=lambda: time.sleep(60), daemon=True).start()",
      "print('ready', flush=True)",
      "libc.pthread_exit(None)",
    ].join("\n");
    const kid = spawn("python3", ["-c", script, checkout, top], { stdio: ["ignore", "pipe", "inherit"] });
    kids.push(kid);
    await ready(kid);
    const pid = kid.pid as number;
    for (let i = 0; i < 100 && stateOf(pid) !== "Z"; i++) await new Promise((r) => setTimeout(r, 20));
    // The premise: the leader is a zombie with an empty maps file; a thread still maps the file.
    expect(stateOf(pid)).toBe("Z");
    expect(readFileSync(`/proc/${pid}/maps`, "utf8")).toBe("");
    expect(whyDirInUse(checkout, Date.now())).toMatch(
      new RegExp(`^process ${pid} has its mapped file inside`),
    );
  }, 20_000);
});
