import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { commitFiles, git, makeRepo, removeDir, writeFiles } from "../../test/support/test-repo.js";
import { commitAll, commitOnTaskBranch } from "./commits.js";
import {
  compareFingerprints,
  compareObjectStores,
  type DevflowRefJudge,
  fingerprintRepo,
  uncommittedPaths,
} from "./repo-fingerprint.js";
import { snapshotTree } from "./snapshot.js";
import { createTaskWorktree } from "./task-worktree.js";
import { openVerifyCheckout } from "./verify-checkout.js";

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

  /** Both halves of the comparison, as the lane's UserRepoCheck runs them. */
  const allChanges = async (
    root: string,
    before: Awaited<ReturnType<typeof fingerprintRepo>>,
    judge: DevflowRefJudge = judgeNone,
  ) => {
    const after = await fingerprintRepo(root);
    return [
      ...compareFingerprints(before, after, judge),
      ...(await compareObjectStores(root, before, after)),
    ];
  };

  it("is unchanged by devflow's completion commit: its ref, its reflog and the pack it ships", async () => {
    const root = repo();
    const before = await fingerprintRepo(root);
    const ws = await createTaskWorktree({ repoRoot: root, taskId: "t1" });
    await openVerifyCheckout({
      repoRoot: root,
      taskId: "t1",
      baseCommit: ws.baseCommit,
      coderCheckout: ws.worktree,
    });
    writeFiles(ws.worktree, { "src/app.ts": "export const a = 2;\n", "src/new.ts": "export const b = 1;\n" });
    const tree = await snapshotTree(ws.worktree);
    const sha = await commitOnTaskBranch({
      repoRoot: root,
      worktree: ws.worktree,
      taskId: "t1",
      expectedHead: ws.baseCommit,
      tree,
      message: "devflow: verified",
    });
    expect(git(root, "rev-parse", "devflow/t1").trim()).toBe(sha);
    expect(await allChanges(root, before, ownBranch("t1"))).toEqual([]);
  });

  /**
   * seam-run-rewrites-an-object-in-the-users-store (review row 3). Cause: objects were not
   * fingerprinted. Fix: loose objects and packs by stat, re-hashed/verified when the stat differs.
   */
  it("seam-run-rewrites-an-object-in-the-users-store: a loose object that no longer hashes to its name", async () => {
    const root = repo();
    const oid = git(root, "rev-parse", "HEAD:README.md").trim();
    const object = join(root, ".git", "objects", oid.slice(0, 2), oid.slice(2));
    expect(existsSync(object)).toBe(true);
    const before = await fingerprintRepo(root);
    // Freshened (same content, new mtime) is not a change.
    git(root, "hash-object", "-w", "README.md");
    const evil = Buffer.from("# rewritten\n");
    expect(await allChanges(root, before)).toEqual([]);
    rmSync(object);
    writeFileSync(object, deflateSync(Buffer.concat([Buffer.from(`blob ${evil.length}\0`), evil])));
    expect(await allChanges(root, before)).toEqual([
      `.git/objects/${oid.slice(0, 2)}/${oid.slice(2)} changed: its content does not hash to its name`,
    ]);
  });

  /** seam-run-leaves-a-merge-in-progress-in-the-users-repo (review row 4). Cause: only config, packed-refs, hooks, info were hashed. Fix: the whole git dir but objects/refs. */
  it("seam-run-leaves-a-merge-in-progress-in-the-users-repo: MERGE_HEAD and MERGE_MSG are named", async () => {
    const root = repo();
    const before = await fingerprintRepo(root);
    writeFileSync(join(root, ".git", "MERGE_HEAD"), `${git(root, "rev-parse", "HEAD").trim()}\n`);
    writeFileSync(join(root, ".git", "MERGE_MSG"), "Merge branch 'evil'\n");
    expect(await allChanges(root, before)).toEqual([".git/MERGE_HEAD added", ".git/MERGE_MSG added"]);
  });

  /** seam-run-sets-skip-worktree-in-the-users-index (review row 5). Cause: the index was not fingerprinted and status does not show the bit. Fix: index entries with their flags (ls-files -s -v). */
  it("seam-run-sets-skip-worktree-in-the-users-index: the index's flags are compared, a stat refresh is not", async () => {
    const root = repo();
    const before = await fingerprintRepo(root);
    git(root, "update-index", "--refresh");
    expect(await allChanges(root, before)).toEqual([]);
    git(root, "update-index", "--skip-worktree", "src/app.ts");
    expect(await allChanges(root, before)).toEqual([".git/index changed"]);
  });
});
