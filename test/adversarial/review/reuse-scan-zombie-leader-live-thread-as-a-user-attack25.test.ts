/**
 * Session-25 review of the in-use scan's zombie skip (src/workspace/dir-in-use.ts, `exited()`,
 * session 24): a leftover makes its LEADER a zombie (pthread_exit in main) while another thread
 * lives on and holds the checkout, and the scan runs as an ordinary user, where the kernel hands a
 * zombie task's /proc links to root (EACCES) and the skip drops the leader. The leftover's start is
 * set before the claim's `unreadableSince`, so the "unreadable, started since" fallback cannot save
 * the scan: only a real read of the live thread can. Held: the live thread's cwd, fd and maps are
 * read through `/proc/<pid>/task/<tid>` (the threads share one fd table, fs and address space).
 * The session-24 tests cover the zombie itself (as a user) and the mapping (as root only).
 *
 *     npm run build && npx vitest run test/adversarial/review/reuse-scan-zombie-leader-live-thread-as-a-user-attack25.test.ts
 */
import { type ChildProcess, spawn } from "node:child_process";
import { chownSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  asUid,
  canDropToAnotherUid,
  killAndReap,
  scanAsUid,
  scanTarget,
  unusedUid,
} from "../../support/scan-as-user.js";

const UID = unusedUid(7) + 2; // range 7 is this session's review; +2 keeps off its other files' uids
const kids: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await killAndReap(kids);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const stateOf = (pid: number, tid: number = pid): string =>
  /^State:\s+(\S)/m.exec(readFileSync(`/proc/${pid}/task/${tid}/status`, "utf8"))?.[1] ?? "?";

/**
 * A process of UID that sets itself up with `setup` (python, `checkout` and `top` in argv), starts
 * a sleeping thread and ends its main thread; resolves with its pid once the leader is a zombie.
 */
async function zombieLeader(setup: string[]): Promise<{ pid: number; checkout: string }> {
  const { top, checkout } = scanTarget("devflow-zombie-leader-", dirs);
  chownSync(checkout, UID, UID);
  chownSync(join(checkout, "a.bin"), UID, UID);
  const script = [
    "import ctypes, os, sys, threading, time",
    "libc = ctypes.CDLL(None)",
    "checkout, top = sys.argv[1], sys.argv[2]",
    ...setup,
    "threading.Thread(target=lambda: time.sleep(60), daemon=True).start()",
    "print('ready', flush=True)",
    "libc.pthread_exit(None)",
  ].join("\n");
  const kid = spawn("setpriv", [...asUid(UID), "env", "-i", "python3", "-c", script, checkout, top], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  kids.push(kid);
  await new Promise<void>((resolve, reject) => {
    kid.stdout?.once("data", () => resolve());
    kid.once("exit", (code) => reject(new Error(`exited ${code} before it was ready`)));
  });
  // setpriv execs env, which execs python: one pid throughout.
  const pid = kid.pid as number;
  for (let i = 0; i < 100 && stateOf(pid) !== "Z"; i++) await new Promise((r) => setTimeout(r, 20));
  expect(stateOf(pid)).toBe("Z"); // the premise: the leader is a zombie ...
  const tids = readFileSync(`/proc/${pid}/status`, "utf8").match(/^Threads:\s+(\d+)/m)?.[1];
  expect(Number(tids)).toBe(2); // ... and the other thread lives
  return { pid, checkout };
}

/** A claim whose task began later than every test process here: only a read link can name one. */
const laterClaim = () => Date.now() + 10 * 60_000;

describe.runIf(canDropToAnotherUid())("a leftover whose main thread exited, scanned as its uid", () => {
  it("its working directory in the checkout counts", async () => {
    const { pid, checkout } = await zombieLeader(["os.chdir(checkout)"]);
    expect(scanAsUid(UID, checkout, laterClaim())).toMatch(new RegExp(`^process ${pid} has its cwd inside`));
  }, 20_000);

  it("an open file of the checkout counts (cwd elsewhere)", async () => {
    const { pid, checkout } = await zombieLeader([
      "fd = os.open(os.path.join(checkout, 'a.bin'), os.O_RDWR)",
      "os.chdir(top)",
    ]);
    expect(scanAsUid(UID, checkout, laterClaim())).toMatch(
      new RegExp(`^process ${pid} has its fd \\d+ inside`),
    );
  }, 20_000);

  it("a shared writable mapping of a checkout file counts (fd closed, cwd elsewhere)", async () => {
    const { pid, checkout } = await zombieLeader([
      "libc.mmap.restype = ctypes.c_void_p",
      "libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]",
      "fd = os.open(os.path.join(checkout, 'a.bin'), os.O_RDWR)",
      "assert libc.mmap(None, 4096, 3, 1, fd, 0) not in (None, ctypes.c_void_p(-1).value)",
      "os.close(fd)",
      "os.chdir(top)",
    ]);
    expect(scanAsUid(UID, checkout, laterClaim())).toMatch(
      new RegExp(`^process ${pid} has its mapped file inside`),
    );
  }, 20_000);
});
