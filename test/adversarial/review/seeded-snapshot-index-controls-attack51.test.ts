/**
 * Attack 51d (review of 109f37b, `seedSnapshotIndex`): controls, all passing. The task's first
 * snapshot now trusts the stat data of the index devflow's checkout of the base wrote. Tried as a
 * coder of the new task: edits that keep size and mtime *after* the entries stopped being racy
 * (the lane test covers the same-instant edit), an edit through a hard link made outside the
 * checkout, an exec-bit flip, a file swapped for a symlink, a file deleted and re-made with the
 * same bytes but for one, and the checkout's own `.git/index` refreshed by the coder (the seed is
 * devflow's copy, read before the coder ran). Each change reaches
 * the first snapshot. Observed (109f37b): as asserted. The seed's entries carry the checkout's
 * ctime, which the coder cannot set back; same-second ctimes (this git compares seconds only, no
 * USE_NSEC) stay racy because the seed's time is kept rounded down.
 */
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  linkSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { verifyGitDir } from "../../../src/home/paths.js";
import { snapshotTree } from "../../../src/workspace/snapshot.js";
import { newTaskSetup } from "../../support/task-setup.js";
import { git, makeRepo, removeDir } from "../../support/test-repo.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDir(dir);
});

const FILES = {
  "a.js": "export const a = 1;\n",
  "b.js": "export const b = 2;\n",
  "c.js": "export const c = 3;\n",
  "d.js": "export const d = 4;\n",
  "e.js": "export const e = 5;\n",
};

/** Writes `text` (same length) into `path` in place and puts its mtime back. */
function sameSizeSameMtime(path: string, text: string): void {
  const before = statSync(path);
  expect(text.length).toBe(before.size);
  writeFileSync(path, text);
  utimesSync(path, before.atime, before.mtime);
}

describe("the seeded first snapshot sees what the coder changed (controls)", () => {
  it("non-racy in-place edits, a hard link's write, an exec bit, a symlink swap, a refreshed checkout index", async () => {
    const root = makeRepo(FILES);
    dirs.push(root);
    const { workspace } = await newTaskSetup(root, "seeded");
    const wt = workspace.worktree;
    // Past the racy window: the seed's entries are trusted by their stat data from now on.
    await new Promise((done) => setTimeout(done, 2100));
    const base = git(root, "rev-parse", "HEAD^{tree}").trim();

    sameSizeSameMtime(join(wt, "a.js"), "export const a = 7;\n");
    const outside = mkdtempSync(join(tmpdir(), "attack51d-"));
    dirs.push(outside);
    linkSync(join(wt, "b.js"), join(outside, "b-link.js"));
    rmSync(join(outside, "b-link.js"));
    // nlink back to 1; write through a hard link made and dropped again, mtime restored.
    linkSync(join(wt, "b.js"), join(outside, "b2.js"));
    sameSizeSameMtime(join(outside, "b2.js"), "export const b = 9;\n");
    rmSync(join(outside, "b2.js"));
    chmodSync(join(wt, "c.js"), 0o755);
    const dStat = statSync(join(wt, "d.js"));
    copyFileSync(join(wt, "d.js"), join(outside, "d-copy.js"));
    rmSync(join(wt, "d.js"));
    symlinkSync(join(outside, "d-copy.js"), join(wt, "d.js"));
    expect(statSync(join(wt, "d.js")).size).toBe(dStat.size);
    // The checkout's own index rewritten by the coder: it plays no part in devflow's snapshot.
    spawnSync("git", ["update-index", "--refresh"], { cwd: wt });
    rmSync(join(wt, "e.js"));
    writeFileSync(join(wt, "e.js"), "export const e = 8;\n");

    const tree = await snapshotTree(wt);
    expect(tree).not.toBe(base);
    const show = (path: string) =>
      git(root, "--git-dir", verifyGitDir(root, "seeded"), "ls-tree", tree, path).trim().split(/\s+/);
    const blob = (path: string) =>
      git(root, "--git-dir", verifyGitDir(root, "seeded"), "cat-file", "-p", `${tree}:${path}`);
    expect(blob("a.js")).toBe("export const a = 7;\n");
    expect(blob("b.js")).toBe("export const b = 9;\n");
    expect(show("c.js")[0]).toBe("100755");
    expect(show("d.js")[0]).toBe("120000");
    expect(blob("e.js")).toBe("export const e = 8;\n");
  }, 60_000);
});
