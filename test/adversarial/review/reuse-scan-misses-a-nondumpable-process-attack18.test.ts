/**
 * Hostile review (session 18, review18) of the in-use scan coder checkout reuse now makes once, at
 * the claim (src/workspace/dir-in-use.ts, ADR 0050): a process the old coder left with its working
 * directory in the checkout follows the checkout's rename and writes into the next task's tree, so
 * a claimed checkout some process uses is removed, never reset for the next task.
 *
 * OPEN (passes while the hole is open): the scan reads `/proc/<pid>/{cwd,root,fd,maps}` and takes
 * an unreadable entry as "not ours to read (another user's process cannot write into our files)".
 * A process of devflow's own uid makes itself unreadable by turning non-dumpable, which needs no
 * privilege: exec a binary it may execute but not read (mode 111), or prctl(PR_SET_DUMPABLE, 0).
 * Its `/proc` links then answer EACCES to every process of that uid, and the scan calls the
 * checkout unused although the process sits in it and can write it. Only where devflow runs as a
 * user without CAP_SYS_PTRACE (as root the scan reads everything), i.e. where the namespaces of
 * ADR 0025 are not available, which is also where a coder's process can outlive its run.
 * The fix (not small: it trades reuse away wherever a user's own agents are non-dumpable, e.g.
 * ssh-agent): an unreadable process whose `/proc/<pid>/status` Uid is devflow's and whose start
 * time (`/proc/<pid>/stat`, readable) is after the old task's checkout was made counts as "in use".
 *
 *     VITEST_MAX_WORKERS=1 npx vitest run test/adversarial/review/reuse-scan-misses-a-nondumpable-process-attack18.test.ts
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readlinkSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { dirInUseByAProcess } from "../../../src/workspace/dir-in-use.js";

const SCAN = new URL("../../../dist/src/workspace/dir-in-use.js", import.meta.url);
const NOBODY = ["--reuid=65534", "--regid=65534", "--clear-groups"];
const canDropToNobody = (): boolean =>
  process.getuid?.() === 0 && spawnSync("setpriv", ["--version"]).status === 0 && existsSync(SCAN);

const kids: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const kid of kids.splice(0)) kid.kill("SIGKILL");
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A checkout owned by uid 65534, and a process of that uid sitting in it running `program`. */
async function squatter(program: "readable" | "execute-only"): Promise<{ checkout: string; pid: number }> {
  const top = mkdtempSync(join(tmpdir(), "devflow-attack18-scan-"));
  dirs.push(top);
  chmodSync(top, 0o755);
  const checkout = join(top, "checkout");
  mkdirSync(checkout);
  chownSync(checkout, 65534, 65534);
  const sleeper = join(top, "sleeper");
  copyFileSync(execFileSync("sh", ["-c", "command -v sleep"], { encoding: "utf8" }).trim(), sleeper);
  chmodSync(sleeper, program === "execute-only" ? 0o111 : 0o755);
  const kid = spawn("setpriv", [...NOBODY, "sh", "-c", `cd "${checkout}" && exec "${sleeper}" 30`], {
    stdio: "ignore",
  });
  kids.push(kid);
  const pid = kid.pid as number;
  // setpriv and sh exec in place: wait until the pid runs the sleeper.
  for (let i = 0; i < 100; i++) {
    try {
      if (readlinkSync(`/proc/${pid}/exe`) === sleeper) break;
    } catch {}
    await new Promise((r) => setTimeout(r, 20));
  }
  expect(readlinkSync(`/proc/${pid}/exe`)).toBe(sleeper);
  return { checkout, pid };
}

/** devflow's scan, run as uid 65534 (devflow as an ordinary user). */
function scanAsNobody(checkout: string): boolean {
  const out = execFileSync(
    "setpriv",
    [
      ...NOBODY,
      process.execPath,
      "--input-type=module",
      "-e",
      `const m = await import(${JSON.stringify(SCAN.href)}); console.log(m.dirInUseByAProcess(${JSON.stringify(checkout)}));`,
    ],
    { encoding: "utf8" },
  );
  return out.trim() === "true";
}

describe.runIf(canDropToNobody())("review18: the claim's in-use scan as an ordinary user", () => {
  it("sees a process of its own uid sitting in the checkout (the harness works)", async () => {
    const { checkout } = await squatter("readable");
    expect(scanAsNobody(checkout)).toBe(true);
  }, 20_000);

  it("OPEN: misses the same process once it is non-dumpable (exec of an execute-only binary), which can still write the checkout", async () => {
    const { checkout, pid } = await squatter("execute-only");
    // As root the scan reads the process's links: it is there.
    expect(dirInUseByAProcess(checkout)).toBe(true);
    expect(readlinkSync(`/proc/${pid}/cwd`)).toBe(checkout);
    // As the process's own uid it cannot, and calls the checkout unused (the hole).
    expect(scanAsNobody(checkout)).toBe(false);
    execFileSync("setpriv", [...NOBODY, "sh", "-c", `echo planted > "${join(checkout, "planted")}"`]);
    expect(existsSync(join(checkout, "planted"))).toBe(true);
  }, 20_000);
});
