/**
 * A new task's coder checkout made from a finished task's idle one (ADR 0050, fourth slice): it
 * must be exactly what a fresh checkout of the new base is (the base's files, nothing else, a new
 * git dir) while rewriting only what differs. The old coder wrote every byte of it, so each thing
 * git's stat check cannot see is pinned here:
 * - "a file the old coder changed after devflow's last snapshot survives the reuse" (cause: a
 *   stale index trusted; fix: devflow's snapshot index, trusted only if it hashes to the record,
 *   with ctime compared);
 * - "a hard link the old coder left writes through into another file" (cause: git's stat check
 *   ignores the link count; fix: files with more than one link are removed before the reset);
 * - "a mode bit a checkout never gives (world-writable file or folder) survives the reuse" (cause:
 *   git compares only the executable bit; fix: such entries are removed before the reset);
 * - "a setuid bit or a special file the old coder left before devflow's snapshot survives the
 *   reuse" and "a file or folder replaced by a symlink leading outside survives the reuse" (the
 *   walk for the first moved to GNU find in issue 11; both pinned on a checkout really reused);
 * - "the old coder's hooks and config are in the new task's git dir" (cause: `git init` over an
 *   existing git dir keeps it; fix: the old `.git` is removed and a new one made).
 */
import { execFileSync, spawn } from "node:child_process";
import {
  chmodSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { coderCheckoutWithStore } from "../../test/support/coder-checkout.js";
import { commitFiles, git, makeRepo, removeDir, tempDir } from "../../test/support/test-repo.js";
import { idleCoderCheckoutsDir, verifyGitDir } from "../home/paths.js";
import { retireCoderCheckout } from "./coder-checkout-reuse.js";
import { snapshotTree } from "./snapshot.js";
import {
  type CoderCheckoutReuse,
  createTaskWorktree,
  makeTaskWorktree,
  planTaskWorktree,
} from "./task-worktree.js";

const dirs: string[] = [];
// The real-sized test leaves a 20,000-file repository with two checkouts: removing them took more
// than the default 60 s hook timeout once, in a CI run on a machine at load 11 (session 25).
afterEach(() => {
  for (const dir of dirs.splice(0)) {
    try {
      chmodSync(dir, 0o755);
    } catch {}
    removeDir(dir);
  }
}, 240_000);

const FILES = {
  "a.js": "export const a = 1;\n",
  "b.js": "export const b = 2;\n",
  "c.js": "export const c = 3;\n",
  "src/d.js": "export const d = 4;\n",
  ".gitignore": "ignored/\n",
};

/**
 * Task A's coder changed a.js, added an untracked file and an ignored one; devflow snapshotted it
 * (recording its index), then `beforeRetire` does what the old coder (or a process it left) did.
 */
async function finishedTaskA(beforeRetire: (worktree: string, root: string) => void = () => {}) {
  const root = makeRepo(FILES);
  dirs.push(root);
  const a = await coderCheckoutWithStore(root, "task-a");
  writeFileSync(join(a.worktree, "a.js"), "export const a = 'A';\n");
  writeFileSync(join(a.worktree, "new.txt"), "coder's new file\n");
  mkdirSync(join(a.worktree, "ignored"));
  writeFileSync(join(a.worktree, "ignored", "cache.bin"), "x");
  mkdirSync(join(a.worktree, ".git", "hooks"), { recursive: true });
  writeFileSync(join(a.worktree, ".git", "hooks", "post-checkout"), "#!/bin/sh\ntouch /tmp/pwned\n", {
    mode: 0o755,
  });
  git(a.worktree, "config", "core.hooksPath", ".git/hooks");
  beforeRetire(a.worktree, root);
  // Entries older than the index are not racy: git trusts their stat data without reading them.
  await new Promise((done) => setTimeout(done, 1100));
  await snapshotTree(a.worktree);
  return { root, a };
}

async function retireAndStartB(
  root: string,
  worktree: string,
  afterSnapshot: (w: string) => void = () => {},
) {
  afterSnapshot(worktree);
  const retired = retireCoderCheckout(root, "task-a", worktree, 1);
  const base = commitFiles(root, { "c.js": "export const c = 'new';\n" }, "c changed");
  const b = await createTaskWorktree({ repoRoot: root, taskId: "task-b" });
  return { retired, base, b };
}

/** Every file under `dir` but `.git`, with its content. */
function filesOf(dir: string, prefix = ""): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir)) {
    if (prefix === "" && name === ".git") continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) Object.assign(out, filesOf(path, `${prefix}${name}/`));
    else out[`${prefix}${name}`] = readFileSync(path, "utf8");
  }
  return out;
}

const EXPECTED_B = { ...FILES, "c.js": "export const c = 'new';\n" };

describe("reusing a finished task's coder checkout", () => {
  it("gives the new task exactly the new base, rewriting only what differs", async () => {
    const { root, a } = await finishedTaskA();
    const untouched = statSync(join(a.worktree, "src", "d.js")).ino;
    const { retired, base, b } = await retireAndStartB(root, a.worktree);
    expect(retired).toBe("kept_idle");
    expect(existsSync(a.worktree)).toBe(false);
    expect(filesOf(b.worktree)).toEqual(EXPECTED_B);
    // Not rewritten: the same file, as the reset found it unchanged.
    expect(statSync(join(b.worktree, "src", "d.js")).ino).toBe(untouched);
    expect(git(b.worktree, "rev-parse", "HEAD").trim()).toBe(base.trim());
    expect(git(b.worktree, "symbolic-ref", "HEAD").trim()).toBe("refs/heads/devflow/task-b");
    expect(git(b.worktree, "status", "--porcelain", "--ignored")).toBe("");
    expect(readdirSync(idleCoderCheckoutsDir(root))).toEqual([]);
  });

  it("regression: the old coder's hooks and config are not in the new task's git dir", async () => {
    const { root, a } = await finishedTaskA();
    const { b } = await retireAndStartB(root, a.worktree);
    expect(existsSync(join(b.worktree, ".git", "hooks"))).toBe(false);
    expect(readFileSync(join(b.worktree, ".git", "config"), "utf8")).not.toContain("hooksPath");
  });

  it("regression: a file changed after devflow's last snapshot (old size and mtime put back) is rewritten", async () => {
    const { root, a } = await finishedTaskA();
    const { b } = await retireAndStartB(root, a.worktree, (worktree) => {
      const file = join(worktree, "b.js");
      const before = statSync(file);
      writeFileSync(file, "export const b = 9;\n");
      utimesSync(file, before.atime, before.mtime);
    });
    expect(filesOf(b.worktree)).toEqual(EXPECTED_B);
  });

  it("regression: a hard link the old coder left does not write through into another file", async () => {
    const outside = tempDir("devflow-outside-");
    dirs.push(outside);
    const target = join(outside, "target.js");
    const { root, a } = await finishedTaskA((worktree) => {
      // Same bytes as the base's src/d.js: the snapshot holds the base's blob, the stat data the link's.
      writeFileSync(target, FILES["src/d.js"]);
      const d = join(worktree, "src", "d.js");
      removeDir(d);
      linkSync(target, d);
    });
    const { b } = await retireAndStartB(root, a.worktree);
    const d = join(b.worktree, "src", "d.js");
    expect(statSync(d).nlink).toBe(1);
    writeFileSync(d, "the next coder's edit\n");
    expect(readFileSync(target, "utf8")).toBe(FILES["src/d.js"]);
  });

  it("regression: a world-writable file or folder the old coder left is made again as a checkout makes it", async () => {
    const { root, a } = await finishedTaskA((worktree) => {
      chmodSync(join(worktree, "b.js"), 0o666);
      chmodSync(join(worktree, "src"), 0o777);
    });
    const { b } = await retireAndStartB(root, a.worktree);
    const umask = process.umask();
    expect(statSync(join(b.worktree, "b.js")).mode & 0o777).toBe(0o666 & ~umask);
    expect(statSync(join(b.worktree, "src")).mode & 0o777).toBe(0o777 & ~umask);
    expect(filesOf(b.worktree)).toEqual(EXPECTED_B);
  });

  it("regression: a snapshot index changed after devflow recorded it is not trusted (the checkout is removed, not reused)", async () => {
    const { root, a } = await finishedTaskA();
    const index = join(verifyGitDir(root, "task-a"), "snapshot-index");
    const recorded = readFileSync(index);
    // What a test run that reaches devflow's git dir could do: an older, valid index put back.
    writeFileSync(join(a.worktree, "a.js"), "export const a = 'second attempt';\n");
    await snapshotTree(a.worktree);
    writeFileSync(index, recorded);
    const { retired, b } = await retireAndStartB(root, a.worktree);
    expect(retired).toBe("removed");
    expect(existsSync(a.worktree)).toBe(false);
    expect(filesOf(b.worktree)).toEqual(EXPECTED_B);
  });

  it("regression: a setuid bit or a special file the old coder left before devflow's snapshot survives the reuse", async () => {
    // Issue 11 moved the walk that finds these from JS to GNU find (entries-stat-cannot-see.ts):
    // pinned end to end, on a checkout that really is reused (an untouched file keeps its inode).
    const { root, a } = await finishedTaskA((worktree) => {
      chmodSync(join(worktree, "b.js"), 0o4644);
      execFileSync("mkfifo", [join(worktree, "src", "pipe")]);
    });
    const untouched = statSync(join(a.worktree, "src", "d.js")).ino;
    const { b } = await retireAndStartB(root, a.worktree);
    expect(statSync(join(b.worktree, "src", "d.js")).ino).toBe(untouched);
    expect(statSync(join(b.worktree, "b.js")).mode & 0o7777).toBe(0o666 & ~process.umask());
    expect(existsSync(join(b.worktree, "src", "pipe"))).toBe(false);
    expect(filesOf(b.worktree)).toEqual(EXPECTED_B);
  });

  it("regression: where find cannot answer, its failure is read as nothing to remove", async () => {
    // A `find` that fails (BSD find has no `-perm /mode`) must hand over to the JS walk.
    const bin = tempDir("devflow-no-find-");
    dirs.push(bin);
    writeFileSync(join(bin, "find"), "#!/bin/sh\necho 'find: unknown predicate' >&2\nexit 1\n", {
      mode: 0o755,
    });
    const { root, a } = await finishedTaskA((worktree) => {
      chmodSync(join(worktree, "b.js"), 0o4644);
    });
    const untouched = statSync(join(a.worktree, "src", "d.js")).ino;
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path}`;
    try {
      const { b } = await retireAndStartB(root, a.worktree);
      expect(statSync(join(b.worktree, "src", "d.js")).ino).toBe(untouched);
      expect(statSync(join(b.worktree, "b.js")).mode & 0o7777).toBe(0o666 & ~process.umask());
    } finally {
      process.env.PATH = path;
    }
  });

  it("regression: a file or folder the old coder replaced by a symlink leading outside survives the reuse", async () => {
    const outside = tempDir("devflow-outside-");
    dirs.push(outside);
    mkdirSync(join(outside, "src"));
    writeFileSync(join(outside, "b.js"), FILES["b.js"]);
    writeFileSync(join(outside, "src", "d.js"), FILES["src/d.js"]);
    // b.js before devflow's last snapshot (the snapshot records a link), src/ after it.
    const { root, a } = await finishedTaskA((worktree) => {
      removeDir(join(worktree, "b.js"));
      symlinkSync(join(outside, "b.js"), join(worktree, "b.js"));
    });
    const untouched = statSync(join(a.worktree, ".gitignore")).ino;
    const { b } = await retireAndStartB(root, a.worktree, (worktree) => {
      removeDir(join(worktree, "src"));
      symlinkSync(join(outside, "src"), join(worktree, "src"));
    });
    expect(statSync(join(b.worktree, ".gitignore")).ino).toBe(untouched);
    expect(lstatSync(join(b.worktree, "b.js")).isFile()).toBe(true);
    expect(lstatSync(join(b.worktree, "src")).isDirectory()).toBe(true);
    expect(filesOf(b.worktree)).toEqual(EXPECTED_B);
    // The next coder's edits stay in its checkout.
    writeFileSync(join(b.worktree, "b.js"), "edit\n");
    writeFileSync(join(b.worktree, "src", "d.js"), "edit\n");
    expect(readFileSync(join(outside, "b.js"), "utf8")).toBe(FILES["b.js"]);
    expect(readFileSync(join(outside, "src", "d.js"), "utf8")).toBe(FILES["src/d.js"]);
  });

  it("regression: the stat-blind walk's own process made every claimed checkout look in use (no reuse on a real-sized repo)", async () => {
    // Cause: find (cwd in the checkout) was started before the /proc in-use scan, which counted it,
    // so each reuse was given up for a full checkout. Fix: find starts after the scan passed. Small
    // checkouts hid it (find was done before the scan began): this one has 20,000 files (at 6,000 the mutation went red only sometimes).
    const many: Record<string, string> = { ...FILES };
    for (let i = 0; i < 20_000; i++)
      many[`gen/m${Math.floor(i / 100)}/f${i}.js`] = `export const v = ${i};\n`;
    const root = makeRepo(many);
    dirs.push(root);
    const a = await coderCheckoutWithStore(root, "task-a");
    await new Promise((done) => setTimeout(done, 1100));
    await snapshotTree(a.worktree);
    const untouched = statSync(join(a.worktree, "gen", "m7", "f777.js")).ino;
    expect(retireCoderCheckout(root, "task-a", a.worktree, 1)).toBe("kept_idle");
    // The report first: a decline names the process that caused it (a CI run failed here once,
    // on a loaded machine, without saying why).
    const reuse: CoderCheckoutReuse = { reusedFrom: null, declined: [] };
    const b = await makeTaskWorktree(await planTaskWorktree({ repoRoot: root, taskId: "task-b" }), {
      report: reuse,
    });
    expect(reuse).toEqual({ reusedFrom: "task-a", declined: [] });
    expect(statSync(join(b.worktree, "gen", "m7", "f777.js")).ino).toBe(untouched);
  });

  it("keeps at most the given number idle, and none with 0", async () => {
    const { root, a } = await finishedTaskA();
    expect(retireCoderCheckout(root, "task-a", a.worktree, 0)).toBe("removed");
    expect(existsSync(a.worktree)).toBe(false);
    expect(existsSync(join(idleCoderCheckoutsDir(root), "task-a"))).toBe(false);
  });

  it("a checkout a process still works in is declined, removed, and the reason handed to the caller", async () => {
    const { root, a } = await finishedTaskA();
    expect(retireCoderCheckout(root, "task-a", a.worktree, 1)).toBe("kept_idle");
    const idle = join(idleCoderCheckoutsDir(root), "task-a");
    // A leftover of the old coder, sitting in its checkout (it follows the claim's rename).
    const leftover = spawn("sleep", ["60"], { cwd: idle, stdio: "ignore" });
    try {
      const reuse: CoderCheckoutReuse = { reusedFrom: null, declined: [] };
      const b = await makeTaskWorktree(await planTaskWorktree({ repoRoot: root, taskId: "task-b" }), {
        report: reuse,
      });
      expect(reuse.reusedFrom).toBeNull();
      expect(reuse.declined).toHaveLength(1);
      expect(reuse.declined[0]?.from).toBe("task-a");
      expect(reuse.declined[0]?.reason).toMatch(
        new RegExp(`in use: process ${leftover.pid} has its cwd inside`),
      );
      // A fresh checkout instead: the base, nothing of task A's.
      expect(filesOf(b.worktree)).toEqual(FILES);
      expect(existsSync(idle)).toBe(false);
    } finally {
      leftover.kill("SIGKILL");
    }
  });

  it("a reused checkout is named as such, with nothing declined", async () => {
    const { root, a } = await finishedTaskA();
    expect(retireCoderCheckout(root, "task-a", a.worktree, 1)).toBe("kept_idle");
    const reuse: CoderCheckoutReuse = { reusedFrom: null, declined: [] };
    await makeTaskWorktree(await planTaskWorktree({ repoRoot: root, taskId: "task-b" }), { report: reuse });
    expect(reuse).toEqual({ reusedFrom: "task-a", declined: [] });
  });
});
