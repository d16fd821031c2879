/**
 * A task's first snapshot starts from the index devflow's checkout of the base wrote (issue 11).
 *
 * Cause (stop 47, measured on the 20,000-file bench repository): the snapshot index in devflow's
 * store began as `read-tree <base>`, with no stat data, so the first snapshot of every task hashed
 * every file of the checkout again (220-320 ms there), although devflow had just written those
 * files itself and its checkout's index held their stat data.
 * Fix: the checkout's index is read right after devflow's checkout of the base, before any coder
 * runs (`TaskWorkspace.baseIndex`), and the task's setup copies it into the store with its time
 * rounded down (`seedSnapshotIndex`). What must still hold is what every later snapshot relies on:
 * an edit is seen whatever the coder does to size and mtime (git compares ctime too).
 */
import { execFileSync } from "node:child_process";
import { existsSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { verifyGitDir } from "../../src/home/paths.js";
import { retireCoderCheckout } from "../../src/workspace/coder-checkout-reuse.js";
import { snapshotTree } from "../../src/workspace/snapshot.js";
import { newTaskSetup } from "../support/task-setup.js";
import { commitFiles, git, makeRepo, removeDir } from "../support/test-repo.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDir(dir);
});

const FILES = { "a.js": "export const a = 1;\n", "src/b.js": "export const b = 2;\n" };

/** The store's snapshot index as git reads it: each path's recorded mtime (seconds), or absent. */
function recordedMtimes(repoRoot: string, taskId: string, worktree: string): Record<string, number> {
  const gitDir = verifyGitDir(repoRoot, taskId);
  const out = execFileSync("git", ["ls-files", "--debug"], {
    cwd: worktree,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_DIR: gitDir,
      GIT_WORK_TREE: worktree,
      GIT_INDEX_FILE: join(gitDir, "snapshot-index"),
    },
  });
  const mtimes: Record<string, number> = {};
  let path = "";
  for (const line of out.split("\n")) {
    if (!line.startsWith(" ")) path = line;
    const mtime = /^\s+mtime: (\d+):/.exec(line);
    if (mtime) mtimes[path] = Number(mtime[1]);
  }
  return mtimes;
}

/** Edits `file` in place keeping its size and its mtime: only its ctime says it changed. */
function editKeepingSizeAndMtime(worktree: string, file: string, text: string): void {
  const path = join(worktree, file);
  const before = statSync(path);
  expect(text.length).toBe(before.size);
  writeFileSync(path, text);
  utimesSync(path, before.atime, before.mtime);
}

describe("a task's setup seeds its snapshot index from devflow's checkout of the base", () => {
  it("a fresh checkout: the index holds the files' stat data before the first snapshot, and an edit is still seen", async () => {
    const root = makeRepo(FILES);
    dirs.push(root);
    const { workspace } = await newTaskSetup(root, "fresh");
    const mtimes = recordedMtimes(root, "fresh", workspace.worktree);
    expect(mtimes["a.js"]).toBe(Math.floor(statSync(join(workspace.worktree, "a.js")).mtimeMs / 1000));
    expect(Object.keys(mtimes).sort()).toEqual(["a.js", "src/b.js"]);

    // Untouched: the base's own tree.
    const base = git(root, "rev-parse", "HEAD^{tree}").trim();
    expect(await snapshotTree(workspace.worktree)).toBe(base);
    editKeepingSizeAndMtime(workspace.worktree, "a.js", "export const a = 7;\n");
    const edited = await snapshotTree(workspace.worktree);
    expect(edited).not.toBe(base);
    expect(git(root, "--git-dir", verifyGitDir(root, "fresh"), "cat-file", "-p", `${edited}:a.js`)).toBe(
      "export const a = 7;\n",
    );
  });

  it("a reused checkout (a finished task's, reset to the new base): seeded too, and an edit is still seen", async () => {
    const root = makeRepo(FILES);
    dirs.push(root);
    const first = await newTaskSetup(root, "first");
    writeFileSync(join(first.workspace.worktree, "src/b.js"), "export const b = 'first';\n");
    // Entries older than the index are not racy: git trusts their stat data without reading them.
    await new Promise((done) => setTimeout(done, 1100));
    await snapshotTree(first.workspace.worktree);
    expect(retireCoderCheckout(root, "first", first.workspace.worktree, 1)).toBe("kept_idle");
    const head = commitFiles(root, { "a.js": "export const a = 2;\n" }, "a changed").trim();

    const { workspace, coderReuse } = await newTaskSetup(root, "second");
    expect(coderReuse?.reusedFrom).toBe("first");
    expect(existsSync(join(verifyGitDir(root, "second"), "snapshot-index"))).toBe(true);
    expect(recordedMtimes(root, "second", workspace.worktree)["src/b.js"]).toBe(
      Math.floor(statSync(join(workspace.worktree, "src/b.js")).mtimeMs / 1000),
    );
    const base = git(root, "rev-parse", `${head}^{tree}`).trim();
    expect(await snapshotTree(workspace.worktree)).toBe(base);
    editKeepingSizeAndMtime(workspace.worktree, "src/b.js", "export const b = 9;\n");
    expect(await snapshotTree(workspace.worktree)).not.toBe(base);
  });
});
