/**
 * A new task adopting a finished task's verification checkout (ADR 0039): its first reset must
 * make the checkout exactly the new tree while rewriting only what differs, and must not trust an
 * index that changed while the checkout sat idle (it is in a git dir the old task's test runs could
 * write). Regression-style pins for "an adopted checkout keeps a file the old task's last test run
 * tampered with" (cause: an on-disk index trusted as is; fix: the index is carried over only if it
 * hashes to the record devflow kept in the old task's artifacts, and the reset still forces ctime),
 * and for "an untracked file, an ignored one and a file replaced by a symlink the old task's test
 * left survive the adoption" (the first reset's read-tree and clean, on the trusted index).
 */
import {
  existsSync,
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
import { commitFiles, git, makeRepo, removeDir, tempDir } from "../../test/support/test-repo.js";
import { verifyCheckoutDir, verifyGitDir, verifyIndexRecord } from "../home/paths.js";
import { snapshotTree } from "./snapshot.js";
import { createTaskWorktree } from "./task-worktree.js";
import { openVerifyCheckout, resetVerifyCheckout } from "./verify-checkout.js";
import { adoptVerifyCheckout } from "./verify-checkout-adopt.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDir(dir);
});

const FILES = {
  "a.js": "export const a = 1;\n",
  "b.js": "export const b = 2;\n",
  "c.js": "export const c = 3;\n",
  "d.js": "export const d = 4;\n",
};

/** Task A verified a change to a.js; its last test run edited b.js in place (same size, old mtime). */
async function finishedTaskA() {
  const root = makeRepo(FILES);
  dirs.push(root);
  const a = await createTaskWorktree({ repoRoot: root, taskId: "task-a" });
  const checkout = await openVerifyCheckout({
    repoRoot: root,
    taskId: "task-a",
    baseCommit: a.baseCommit,
    coderCheckout: a.worktree,
  });
  writeFileSync(join(a.worktree, "a.js"), "export const a = 'A';\n");
  const tree = await snapshotTree(a.worktree);
  await resetVerifyCheckout(checkout, tree);
  // Entries older than the index are not racy: git trusts their stat data without reading them.
  await new Promise((done) => setTimeout(done, 1100));
  await resetVerifyCheckout(checkout, tree);
  const b = join(checkout.dir, "b.js");
  const before = statSync(b);
  writeFileSync(b, "export const b = 9;\n");
  utimesSync(b, before.atime, before.mtime);
  // The user moves on: B starts from a base where c.js changed.
  const base = commitFiles(root, { "c.js": "export const c = 'new';\n" }, "c changed");
  return { root, checkout, base };
}

async function adoptAsB(root: string, base: string) {
  const adopted = await adoptVerifyCheckout({
    repoRoot: root,
    fromTaskId: "task-a",
    taskId: "task-b",
    baseCommit: base,
  });
  const b = await createTaskWorktree({ repoRoot: root, taskId: "task-b" });
  const checkout = await openVerifyCheckout({
    repoRoot: root,
    taskId: "task-b",
    baseCommit: base,
    coderCheckout: b.worktree,
  });
  return { adopted, checkout };
}

const read = (dir: string, file: string) => readFileSync(join(dir, file), "utf8");

describe("adopting a finished task's verification checkout", () => {
  it("moves it to the new task and rewrites only what differs, restoring what the old task's test left", async () => {
    const { root, base } = await finishedTaskA();
    const untouched = statSync(join(verifyCheckoutDir(root, "task-a"), "d.js")).ctimeMs;
    const { adopted, checkout } = await adoptAsB(root, base);
    expect(adopted).toEqual({ from: "task-a", indexTrusted: true });
    expect(existsSync(verifyCheckoutDir(root, "task-a"))).toBe(false);
    expect(existsSync(verifyGitDir(root, "task-a"))).toBe(false);
    expect(existsSync(verifyIndexRecord(root, "task-a"))).toBe(false);
    expect(checkout.dir).toBe(verifyCheckoutDir(root, "task-b"));

    const report = await resetVerifyCheckout(checkout, base);
    expect(report.rewroteAll).toBe(false);
    expect(read(checkout.dir, "a.js")).toBe(FILES["a.js"]);
    expect(read(checkout.dir, "b.js")).toBe(FILES["b.js"]);
    expect(read(checkout.dir, "c.js")).toBe("export const c = 'new';\n");
    // Not rewritten (same ctime; it was written over a second before): the adopted index was trusted.
    expect(statSync(join(checkout.dir, "d.js")).ctimeMs).toBe(untouched);
    expect(git(checkout.dir, "status", "--porcelain")).toBe("");
    expect(readFileSync(join(checkout.gitDir, "HEAD"), "utf8").trim()).toBe(base);
  });

  it("regression: an untracked file, an ignored one and a file replaced by a symlink the old task's test left survive the adoption", async () => {
    const { root, checkout: old, base } = await finishedTaskA();
    const outside = tempDir("devflow-outside-");
    dirs.push(outside);
    writeFileSync(join(outside, "a.js"), "export const a = 'A';\n");
    writeFileSync(join(old.dir, "report.xml"), "<testsuite/>\n");
    writeFileSync(join(old.dir, ".gitignore"), "cache/\n");
    mkdirSync(join(old.dir, "cache", "deep"), { recursive: true });
    writeFileSync(join(old.dir, "cache", "deep", "hit.bin"), "x");
    removeDir(join(old.dir, "a.js"));
    symlinkSync(join(outside, "a.js"), join(old.dir, "a.js"));
    const untouched = statSync(join(old.dir, "d.js")).ctimeMs;
    const { adopted, checkout } = await adoptAsB(root, base);
    expect(adopted).toEqual({ from: "task-a", indexTrusted: true });
    await resetVerifyCheckout(checkout, base);
    // The adopted index was used (d.js kept), and still nothing of the old task is left.
    expect(statSync(join(checkout.dir, "d.js")).ctimeMs).toBe(untouched);
    expect(readdirSync(checkout.dir).sort()).toEqual([".git", "a.js", "b.js", "c.js", "d.js"]);
    expect(lstatSync(join(checkout.dir, "a.js")).isFile()).toBe(true);
    expect(read(checkout.dir, "a.js")).toBe(FILES["a.js"]);
    expect(readFileSync(join(outside, "a.js"), "utf8")).toBe("export const a = 'A';\n");
    expect(git(checkout.dir, "status", "--porcelain", "--ignored", "--untracked-files=all")).toBe("");
  });

  it("does not trust an index changed while the checkout was idle: every file is rewritten", async () => {
    const { root, checkout: old, base } = await finishedTaskA();
    // Hides the tampered b.js from the stat check, as a test run could (ADR 0032).
    git(old.dir, "update-index", "--skip-worktree", "b.js");
    const untouched = statSync(join(old.dir, "d.js")).ctimeMs;
    const { adopted, checkout } = await adoptAsB(root, base);
    expect(adopted).toEqual({ from: "task-a", indexTrusted: false });
    const report = await resetVerifyCheckout(checkout, base);
    expect(report.rewroteAll).toBe(true);
    expect(read(checkout.dir, "b.js")).toBe(FILES["b.js"]);
    expect(read(checkout.dir, "a.js")).toBe(FILES["a.js"]);
    expect(statSync(join(checkout.dir, "d.js")).ctimeMs).not.toBe(untouched);
    expect(git(checkout.dir, "ls-files", "-v", "b.js").trim()).toBe("H b.js");
  });

  it("adopts nothing once another task took it (the rename is the claim)", async () => {
    const { root, base } = await finishedTaskA();
    const first = await adoptVerifyCheckout({
      repoRoot: root,
      fromTaskId: "task-a",
      taskId: "task-b",
      baseCommit: base,
    });
    const second = await adoptVerifyCheckout({
      repoRoot: root,
      fromTaskId: "task-a",
      taskId: "task-c",
      baseCommit: base,
    });
    expect(first?.from).toBe("task-a");
    expect(second).toBeNull();
    expect(existsSync(verifyCheckoutDir(root, "task-c"))).toBe(false);
  });
});
