/**
 * Hostile review (session 17, attack7) of ADR 0050's in-use check (dir-in-use.ts): a process the
 * old coder left can hold a coder checkout's file with no fd, cwd or root inside it, by a shared
 * writable memory mapping (mmap, then close the fd, then chdir out). /proc/<pid>/fd no longer
 * names the file, so retirement kept the checkout idle, the next task claimed it, and the reset
 * left the mapped file's inode in place (its stat matched the index, so git did not rewrite it):
 * the process's later writes through the mapping landed in the next task's checkout, in the tree
 * its diffs start from.
 * Fix: the in-use scan (then dirInUseByAProcess, whyDirInUse since session 23) also reads
 * /proc/<pid>/maps (every file a process has mapped).
 *
 *     npx vitest run test/adversarial/review/coder-checkout-reuse-mmap-attack7.test.ts
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { idleCoderCheckoutsDir } from "../../../src/home/paths.js";
import { retireCoderCheckout } from "../../../src/workspace/coder-checkout-reuse.js";
import { whyDirInUse } from "../../../src/workspace/dir-in-use.js";
import { snapshotTree } from "../../../src/workspace/snapshot.js";
import { createTaskWorktree } from "../../../src/workspace/task-worktree.js";
import { coderCheckoutWithStore } from "../../support/coder-checkout.js";
import { git, makeRepo, removeDir } from "../../support/test-repo.js";

const dirs: string[] = [];
const kids: number[] = [];
afterEach(() => {
  for (const pid of kids.splice(0))
    try {
      process.kill(-pid, "SIGKILL");
    } catch {}
  for (const dir of dirs.splice(0)) removeDir(dir);
});

// Maps the file shared and writable, closes its fd, leaves the checkout, says "ready", then writes
// through the mapping once the next task has claimed the checkout.
const MAPPER = `
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
fd = os.open(sys.argv[1], os.O_RDWR)
addr = libc.mmap(None, 4096, 3, 1, fd, 0)  # PROT_READ|PROT_WRITE, MAP_SHARED
assert addr not in (None, ctypes.c_void_p(-1).value), "mmap failed"
os.close(fd); os.chdir("/")
print("ready", flush=True)
time.sleep(float(sys.argv[2]))
ctypes.memmove(addr, b"PLANTED", 7)
time.sleep(60)
`;

describe("attack7: a mapped file keeps a coder checkout in use", () => {
  // Named "retirement removes a checkout a process maps a file of" until session 23, which was no
  // longer true: task-a is never snapshotted (no trusted index), so retirement removes it for that
  // reason alone (it has not scanned /proc since session 18). What it shows is the scan seeing the
  // mapping and the next task starting from base; the mapped checkout kept idle and claimed is the
  // next test.
  it("coder-checkout-reuse-follows-an-mmapped-file: the scan sees a file mapped with no fd, cwd or root inside; a checkout never snapshotted is removed at retirement and the next task starts from base", async () => {
    const root = makeRepo({ "a.js": "export const a = 1;\n", "src/d.js": "export const d = 4;\n" });
    dirs.push(root);
    const a = await createTaskWorktree({ repoRoot: root, taskId: "task-a" });
    const mapped = join(a.worktree, "src/d.js");
    const child = spawn("python3", ["-c", MAPPER, mapped, "3"], {
      detached: true,
      stdio: ["ignore", "pipe", "inherit"],
    });
    if (child.pid !== undefined) kids.push(child.pid);
    await new Promise<void>((ready, failed) => {
      child.stdout?.once("data", () => ready());
      child.once("exit", (code) => failed(new Error(`the mapper ended early (${code})`)));
    });
    // Nothing of it is a cwd, root or open fd any more: only the mapping holds the file.
    const pid = child.pid ?? 0;
    expect(readFileSync(`/proc/${pid}/maps`, "utf8")).toContain(mapped);
    // By the mapping itself (no unreadable process counted: pid 1 of some sandboxes hides even from root).
    expect(whyDirInUse(a.worktree, Number.POSITIVE_INFINITY)).toMatch(
      new RegExp(`^process ${pid} has its mapped file`),
    );

    const retired = retireCoderCheckout(root, "task-a", a.worktree, 1);
    expect(retired).toBe("removed");
    const b = await createTaskWorktree({ repoRoot: root, taskId: "task-b" });
    await new Promise((done) => setTimeout(done, 4000));
    expect(readFileSync(join(b.worktree, "src/d.js"), "utf8")).toBe("export const d = 4;\n");
    // The next task's first snapshot (the start of its diffs) is the base, tree for tree.
    const start = await snapshotTree(b.worktree);
    expect(git(b.worktree, "rev-parse", `${start}^{tree}`).trim()).toBe(
      git(root, "rev-parse", "HEAD^{tree}").trim(),
    );
  }, 30_000);

  // Session 18 (issue 11) moved the in-use check to one place: the claim, on the claimed checkout
  // (retirement no longer scans /proc). A checkout whose snapshot index is trusted is kept idle
  // even with the mapper alive; the next task's claim must still see the mapping and check the base
  // out afresh instead of resetting the mapped inode in place.
  it("coder-checkout-reuse-claims-a-mapped-checkout: a trusted checkout kept idle with a mapping alive is not reset for the next task", async () => {
    const root = makeRepo({ "a.js": "export const a = 1;\n", "src/d.js": "export const d = 4;\n" });
    dirs.push(root);
    const a = await coderCheckoutWithStore(root, "task-a");
    await snapshotTree(a.worktree);
    const child = spawn("python3", ["-c", MAPPER, join(a.worktree, "src/d.js"), "3"], {
      detached: true,
      stdio: ["ignore", "pipe", "inherit"],
    });
    if (child.pid !== undefined) kids.push(child.pid);
    await new Promise<void>((ready, failed) => {
      child.stdout?.once("data", () => ready());
      child.once("exit", (code) => failed(new Error(`the mapper ended early (${code})`)));
    });
    expect(retireCoderCheckout(root, "task-a", a.worktree, 1)).toBe("kept_idle");
    const b = await createTaskWorktree({ repoRoot: root, taskId: "task-b" });
    // Claimed and refused: the idle checkout is gone (removed), not reset into task-b's path.
    expect(existsSync(join(idleCoderCheckoutsDir(root), "task-a"))).toBe(false);
    await new Promise((done) => setTimeout(done, 4000));
    expect(readFileSync(join(b.worktree, "src/d.js"), "utf8")).toBe("export const d = 4;\n");
    const start = await snapshotTree(b.worktree);
    expect(git(b.worktree, "rev-parse", `${start}^{tree}`).trim()).toBe(
      git(root, "rev-parse", "HEAD^{tree}").trim(),
    );
  }, 30_000);
});
