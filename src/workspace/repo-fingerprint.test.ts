import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { commitFiles, git, makeRepo, removeDir, writeFiles } from "../../test/support/test-repo.js";
import { commitAll } from "./commits.js";
import { compareFingerprints, fingerprintRepo, uncommittedPaths } from "./repo-fingerprint.js";
import { snapshotTree } from "./snapshot.js";
import { createTaskWorktree } from "./task-worktree.js";

/** No change of a devflow branch is devflow's own. */
const judgeNone = (): boolean => false;
/** Only task `id`'s own branch may change. */
const ownBranch =
  (id: string) =>
  (ref: string): boolean =>
    ref === `refs/heads/devflow/${id}`;

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDir(dir);
});
const repo = (): string => {
  const root = makeRepo({ "README.md": "hello\n", "src/app.ts": "export const a = 1;\n" });
  dirs.push(root);
  return root;
};

describe("fingerprintRepo / compareFingerprints", () => {
  it("is unchanged by devflow's own work: a task worktree, its branch, snapshots and commits", async () => {
    const root = repo();
    writeFiles(root, { ".gitignore": "dist/\n", "dist/out.js": "built\n", "notes.txt": "mine\n" });
    const before = await fingerprintRepo(root);
    const ws = await createTaskWorktree({ repoRoot: root, taskId: "t1" });
    writeFiles(ws.worktree, { "src/app.ts": "export const a = 2;\n" });
    await snapshotTree(ws.worktree);
    await commitAll(ws.worktree, "devflow: change");
    expect(compareFingerprints(before, await fingerprintRepo(root), ownBranch("t1"))).toEqual([]);
    expect(before.ignored.mode).toBe("content");
  });

  it("does not write the user's index while reading it", async () => {
    const root = repo();
    writeFiles(root, { "src/app.ts": "export const a = 3;\n" });
    const index = () => git(root, "rev-parse", "--git-path", "index").trim();
    const { statSync } = await import("node:fs");
    const mtime = statSync(join(root, index())).mtimeMs;
    await fingerprintRepo(root);
    expect(statSync(join(root, index())).mtimeMs).toBe(mtime);
  });

  it("names each kind of change", async () => {
    const root = repo();
    writeFiles(root, { ".gitignore": "dist/\n", "dist/out.js": "built\n" });
    const before = await fingerprintRepo(root);
    commitFiles(root, { "src/app.ts": "export const a = 9;\n" }, "moved main");
    git(root, "branch", "devflow/ignored-branch");
    git(root, "branch", "feature");
    git(root, "config", "--local", "core.pager", "evil");
    const hooks = join(root, ".git", "hooks");
    mkdirSync(hooks, { recursive: true });
    writeFileSync(join(hooks, "pre-push"), "#!/bin/sh\n");
    writeFiles(root, { "new.txt": "x\n", "dist/out.js": "rebuilt\n" });
    writeFileSync(join(root, ".git", "info", "exclude"), "hidden\n");
    const changes = compareFingerprints(before, await fingerprintRepo(root), ownBranch("ignored-branch"));
    const text = changes.join("\n");
    expect(text).toMatch(/^HEAD moved from /m);
    expect(text).toMatch(/^ref refs\/heads\/main moved from /m);
    expect(text).toMatch(/^ref refs\/heads\/feature added$/m);
    expect(text).not.toContain("devflow/ignored-branch");
    expect(text).toMatch(/^\.git\/config changed$/m);
    expect(text).toMatch(/^\.git\/hooks\/pre-push added$/m);
    expect(text).toMatch(/^\.git\/info\/exclude (changed|added)$/m);
    expect(text).toMatch(/^file new\.txt added$/m);
    expect(text).toMatch(/^file src\/app\.ts changed$/m);
    expect(text).toMatch(/^ignored files changed/m);
  });

  it("catches a content change to an already modified file (same git status)", async () => {
    const root = repo();
    writeFiles(root, { "src/app.ts": "dirty 1\n" });
    const before = await fingerprintRepo(root);
    expect(uncommittedPaths(before)).toEqual(["src/app.ts"]);
    writeFiles(root, { "src/app.ts": "dirty 2\n" });
    expect(compareFingerprints(before, await fingerprintRepo(root), judgeNone)).toEqual([
      "file src/app.ts changed",
    ]);
  });

  it("hashes many ignored files by size and mtime, and says so", async () => {
    const root = repo();
    writeFiles(root, { ".gitignore": "cache/\n", "cache/a": "1", "cache/b": "2", "cache/c": "3" });
    const before = await fingerprintRepo(root, { ignoredContentFiles: 2 });
    expect(before.ignored).toMatchObject({ mode: "stat", count: 3 });
    writeFiles(root, { "cache/d": "4" });
    const after = await fingerprintRepo(root, { ignoredContentFiles: 2, ignoredStatFiles: 3 });
    expect(after.ignored).toMatchObject({ mode: "count", count: 4 });
    expect(compareFingerprints(before, after, judgeNone)).toEqual([
      "ignored files changed (3 → 4 files, compared by count)",
    ]);
  });
});

describe("devflow's git runs no hooks in a checkout that shares the user's .git", () => {
  it("a post-checkout hook in the user's repo does not run when devflow adds the task worktree", async () => {
    const root = repo();
    const marker = join(root, "..", `hook-ran-${Date.now()}`);
    const hook = join(root, ".git", "hooks", "post-checkout");
    writeFileSync(hook, `#!/bin/sh\ntouch "${marker}"\n`);
    chmodSync(hook, 0o755);
    git(root, "checkout", "-q", "-b", "probe"); // the hook works for the user's own git
    expect(existsSync(marker)).toBe(true);
    removeDir(marker);
    await createTaskWorktree({ repoRoot: root, taskId: "t2" });
    expect(existsSync(marker)).toBe(false);
  });

  // Regression (catalogue entry moves-another-tasks-devflow-branch). Cause: every
  // refs/heads/devflow/* ref was left out of the fingerprint, so a coder that rewrote an earlier
  // task's result branch went unnoticed and the run completed. Fix: devflow's branches are kept
  // apart and each change is judged (own branch, a live run, a recorded commit); the rest is listed.
  it("lists a change to another task's devflow branch that the judge does not explain", async () => {
    const root = repo();
    git(root, "branch", "devflow/earlier");
    git(root, "branch", "devflow/gone");
    const before = await fingerprintRepo(root);
    commitFiles(root, { "x.txt": "x\n" }, "other");
    git(root, "update-ref", "refs/heads/devflow/earlier", "HEAD");
    git(root, "branch", "-D", "devflow/gone");
    git(root, "branch", "devflow/new", "HEAD");
    git(root, "reset", "-q", "--hard", "HEAD~1");
    const after = await fingerprintRepo(root);
    const changes = compareFingerprints(before, after, judgeNone);
    expect(changes.filter((c) => c.startsWith("ref refs/heads/devflow/"))).toEqual([
      expect.stringMatching(/^ref refs\/heads\/devflow\/earlier moved from \w+ to \w+$/),
      "ref refs/heads/devflow/gone removed",
      expect.stringMatching(/^ref refs\/heads\/devflow\/new added at \w+$/),
    ]);
    expect(compareFingerprints(before, after, () => true).some((c) => c.includes("devflow/"))).toBe(false);
  });
});
