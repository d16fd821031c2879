/**
 * Hostile review (s16/attack6) of coder checkout reuse (ADR 0050 fourth slice): what an old coder
 * leaves in its checkout, after devflow's last snapshot, must not reach the user's files, outside
 * files, or the next task's checkout, and must not stop the next task from starting.
 */
import { spawn } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { idleCoderCheckoutsDir } from "../../../src/home/paths.js";
import { retireCoderCheckout } from "../../../src/workspace/coder-checkout-reuse.js";
import { snapshotTree } from "../../../src/workspace/snapshot.js";
import { createTaskWorktree } from "../../../src/workspace/task-worktree.js";
import { coderCheckoutWithStore } from "../../support/coder-checkout.js";
import { commitFiles, git, makeRepo, removeDir, tempDir } from "../../support/test-repo.js";

const dirs: string[] = [];
const kids: number[] = [];
afterEach(() => {
  for (const pid of kids.splice(0))
    try {
      process.kill(-pid, "SIGKILL");
    } catch {}
  for (const dir of dirs.splice(0)) {
    try {
      chmodAll(dir);
    } catch {}
    removeDir(dir);
  }
});

function chmodAll(dir: string): void {
  try {
    chmodSync(dir, 0o755);
  } catch {}
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const n of names) {
    const p = join(dir, n);
    try {
      const st = require("node:fs").lstatSync(p);
      if (st.isDirectory()) chmodAll(p);
    } catch {}
  }
}

const FILES = {
  "a.js": "export const a = 1;\n",
  "src/d.js": "export const d = 4;\n",
  ".gitignore": "ignored/\n",
};

async function finishedA() {
  const root = makeRepo(FILES);
  dirs.push(root);
  const a = await coderCheckoutWithStore(root, "task-a");
  writeFileSync(join(a.worktree, "a.js"), "export const a = 'A';\n");
  await new Promise((done) => setTimeout(done, 1100));
  await snapshotTree(a.worktree);
  return { root, a };
}

async function retireAndStartB(root: string, worktree: string) {
  const retired = retireCoderCheckout(root, "task-a", worktree, 1);
  commitFiles(root, { "a.js": "export const a = 'base2';\n" }, "base2");
  const b = await createTaskWorktree({ repoRoot: root, taskId: "task-b" });
  return { retired, b };
}

describe("attack6: coder checkout reuse", () => {
  it("withstands: a tracked directory replaced by a symlink to an outside dir (after snapshot) neither deletes nor writes outside", async () => {
    const outside = tempDir("devflow-attack6-outside-");
    dirs.push(outside);
    writeFileSync(join(outside, "precious.txt"), "keep me\n");
    writeFileSync(join(outside, "d.js"), "outside d\n");
    const { root, a } = await finishedA();
    rmSync(join(a.worktree, "src"), { recursive: true, force: true });
    symlinkSync(outside, join(a.worktree, "src"));
    // and an untracked top-level symlink to the user's repo (clean -ffdx must not follow it)
    symlinkSync(root, join(a.worktree, "userrepo"));
    const { retired, b } = await retireAndStartB(root, a.worktree);
    expect(retired).toBe("kept_idle");
    expect(readFileSync(join(outside, "precious.txt"), "utf8")).toBe("keep me\n");
    expect(readFileSync(join(outside, "d.js"), "utf8")).toBe("outside d\n");
    expect(existsSync(join(root, "a.js"))).toBe(true);
    expect(statSync(join(b.worktree, "src")).isDirectory()).toBe(true);
    expect(require("node:fs").lstatSync(join(b.worktree, "src")).isSymbolicLink()).toBe(false);
    expect(readFileSync(join(b.worktree, "src", "d.js"), "utf8")).toBe(FILES["src/d.js"]);
    expect(existsSync(join(b.worktree, "userrepo"))).toBe(false);
    expect(git(b.worktree, "status", "--porcelain", "--ignored")).toBe("");
  });

  it("defended (was a hole): the idle checkout's own directory replaced by a symlink to the user's repo is not reset into the user's repo", async () => {
    const { root, a } = await finishedA();
    const userHead = git(root, "rev-parse", "HEAD").trim();
    writeFileSync(join(root, "user-untracked.txt"), "mine\n");
    const retired = retireCoderCheckout(root, "task-a", a.worktree, 1);
    expect(retired).toBe("kept_idle");
    const idle = join(idleCoderCheckoutsDir(root), "task-a");
    // A process left behind swaps the idle checkout for a link to the user's repository.
    rmSync(idle, { recursive: true, force: true });
    symlinkSync(root, idle);
    let err: unknown;
    try {
      await createTaskWorktree({ repoRoot: root, taskId: "task-b" });
    } catch (e) {
      err = e;
    }
    console.log(
      `ATTACK6 idle-symlink: err=${String(err)}; user .git now: ${readdirSync(join(root, ".git")).join(",")}`,
    );
    expect(readFileSync(join(root, "user-untracked.txt"), "utf8")).toBe("mine\n");
    expect(git(root, "rev-parse", "HEAD").trim()).toBe(userHead);
  });

  it("defended (was a hole): the coder's own checkout replaced (after the last snapshot) by a symlink to the user's repo is retired, then reset into the user's repo", async () => {
    const { root, a } = await finishedA();
    const userHead = git(root, "rev-parse", "HEAD").trim();
    writeFileSync(join(root, "user-untracked.txt"), "mine\n");
    rmSync(a.worktree, { recursive: true, force: true });
    symlinkSync(root, a.worktree);
    const retired = retireCoderCheckout(root, "task-a", a.worktree, 1);
    console.log(`ATTACK6 checkout-symlink retired=${retired}`);
    let err: unknown;
    try {
      await createTaskWorktree({ repoRoot: root, taskId: "task-b" });
    } catch (e) {
      err = e;
    }
    console.log(
      `ATTACK6 checkout-symlink: err=${String(err)}; user .git now: ${readdirSync(join(root, ".git")).join(",")}`,
    );
    expect(readFileSync(join(root, "user-untracked.txt"), "utf8")).toBe("mine\n");
    expect(git(root, "rev-parse", "HEAD").trim()).toBe(userHead);
  });

  it("withstands: a nested mode-000 directory holding a file (after snapshot) does not stop the next task from starting", async () => {
    const { root, a } = await finishedA();
    const trap = join(a.worktree, "ignored", "deep");
    mkdirSync(join(trap, "inner"), { recursive: true });
    writeFileSync(join(trap, "inner", "f"), "x");
    chmodSync(join(trap, "inner"), 0o000);
    chmodSync(trap, 0o000);
    const { retired, b } = await retireAndStartB(root, a.worktree);
    expect(retired).toBe("kept_idle");
    expect(readFileSync(join(b.worktree, "a.js"), "utf8")).toBe("export const a = 'base2';\n");
    expect(existsSync(join(b.worktree, "ignored"))).toBe(false);
  });

  // Was OPEN (session 16, pinned with it.fails). Cause: a process the old coder left with its cwd in
  // the checkout followed the checkout's rename into `.idle/` and then into the next task's
  // checkout. Fix: retire and claim both scan /proc (src/workspace/dir-in-use.ts) and remove a
  // checkout a live process uses; the claim also fails closed when the reset did not leave exactly
  // the base. (The /proc check was reverted once for a sweep-after-crash timeout; that was a stale
  // dist/, see the waitFor of test/crash/sweep-after-crash.test.ts.)
  it("defended (was OPEN): a background process the old coder left does not write into the next task's checkout, whose first snapshot (the seam tree its diffs start from) is the base", async () => {
    const { root, a } = await finishedA();
    const child = spawn(
      "sh",
      ["-c", "while true; do echo planted > ./planted.txt 2>/dev/null; sleep 0.2; done"],
      { cwd: a.worktree, detached: true, stdio: "ignore" },
    );
    if (child.pid !== undefined) kids.push(child.pid);
    await new Promise((d) => setTimeout(d, 500));
    const { b } = await retireAndStartB(root, a.worktree);
    await new Promise((d) => setTimeout(d, 800));
    // The user's repository is never reached.
    expect(existsSync(join(root, "planted.txt"))).toBe(false);
    const start = await snapshotTree(b.worktree);
    const files = git(b.worktree, "ls-tree", "-r", "--name-only", start).trim().split("\n");
    const base = git(root, "ls-tree", "-r", "--name-only", "HEAD").trim().split("\n");
    console.log(`ATTACK6 background writer: task-b start tree files=${files.join(",")}`);
    expect(files).toEqual(base);
  });
});
