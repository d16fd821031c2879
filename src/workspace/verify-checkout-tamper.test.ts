/**
 * Regression tests for "a reset of the verification checkout keeps a file a test run tampered with".
 *
 * Cause: `read-tree -u --reset` decides which files to rewrite from the index and the stat data in
 * it, and both live in the verification git dir, which the seam and regression runs can write
 * (the checkout's `.git` file points there). A test run that edited a tracked file and then set
 * `skip-worktree` on it (`git update-index`), or told git to stop comparing ctime
 * (`core.trustctime=false`, `core.checkStat=minimal`) and put the old mtime back, kept its edit
 * through the reset, so the next run (regression after seam, the next attempt) ran on something
 * other than the snapshot (ADR 0024: "reset to exactly the tree").
 * Fix: every reset starts from devflow's own copy of the index its previous reset wrote (a changed
 * or replaced index is put back, never written through a symlink) and forces the ctime stat check
 * on the command line (ADR 0032).
 */
import { existsSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { git, makeRepo, removeDir, writeFiles } from "../../test/support/test-repo.js";
import { snapshotTree } from "./snapshot.js";
import { createTaskWorktree } from "./task-worktree.js";
import { openVerifyCheckout, resetVerifyCheckout } from "./verify-checkout.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDir(dir);
});

const TASK = "tamper-test";

async function resetCheckout() {
  const root = makeRepo({ "a.js": "export const a = 1;\n", "b.js": "export const b = 2;\n" });
  dirs.push(root);
  const ws = await createTaskWorktree({ repoRoot: root, taskId: TASK });
  const checkout = await openVerifyCheckout({
    repoRoot: root,
    taskId: TASK,
    baseCommit: ws.baseCommit,
    coderCheckout: ws.worktree,
  });
  const tree = await snapshotTree(ws.worktree);
  await resetVerifyCheckout(checkout, tree);
  return { root, checkout, tree };
}

describe("a reset of the verification checkout keeps a file a test run tampered with (regression)", () => {
  it("restores a file the test run hid behind skip-worktree", async () => {
    const { checkout, tree } = await resetCheckout();
    writeFileSync(join(checkout.dir, "a.js"), "export const a = 'tampered';\n");
    git(checkout.dir, "update-index", "--skip-worktree", "a.js");
    await resetVerifyCheckout(checkout, tree);
    expect(readFileSync(join(checkout.dir, "a.js"), "utf8")).toBe("export const a = 1;\n");
    expect(git(checkout.dir, "ls-files", "-v", "a.js").trim()).toBe("H a.js");
  });

  it("restores a same-size in-place edit with the old mtime put back, whatever the git dir's config says", async () => {
    const { checkout, tree } = await resetCheckout();
    // Entries older than the index are not "racy": git trusts their stat data without reading them.
    await new Promise((done) => setTimeout(done, 1100));
    await resetVerifyCheckout(checkout, tree);
    const file = join(checkout.dir, "a.js");
    const before = statSync(file);
    writeFileSync(file, "export const a = 9;\n");
    utimesSync(file, before.atime, before.mtime);
    git(checkout.dir, "config", "core.trustctime", "false");
    git(checkout.dir, "config", "core.checkStat", "minimal");
    await resetVerifyCheckout(checkout, tree);
    expect(readFileSync(file, "utf8")).toBe("export const a = 1;\n");
  });

  it("puts its own index back instead of writing through a symlink planted in its place", async () => {
    const { root, checkout, tree } = await resetCheckout();
    const outside = join(root, "..", `outside-${process.pid}-${Date.now()}`);
    writeFileSync(outside, "not devflow's\n");
    dirs.push(outside);
    const index = join(checkout.gitDir, "index");
    removeDir(index);
    symlinkSync(outside, index);
    writeFiles(checkout.dir, { "b.js": "tampered\n" });
    await resetVerifyCheckout(checkout, tree);
    expect(readFileSync(outside, "utf8")).toBe("not devflow's\n");
    expect(readFileSync(join(checkout.dir, "b.js"), "utf8")).toBe("export const b = 2;\n");
    expect(existsSync(index) && statSync(index).isFile()).toBe(true);
  });
});
