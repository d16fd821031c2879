import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  checkoutState,
  commitFiles,
  git,
  makeRepo,
  removeDir,
  writeFiles,
} from "../../test/support/test-repo.js";
import { commitAll } from "./commits.js";
import { checkGitLink } from "./git-link.js";
import { snapshotTree } from "./snapshot.js";
import {
  createTaskWorktree,
  openTaskWorktree,
  removeTaskWorktree,
  taskWorktreePath,
} from "./task-worktree.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDir(dir);
});

/** A user's repo in the middle of their own work: a staged change, an unstaged one, an untracked file. */
function busyUserRepo(): string {
  const root = makeRepo({ "README.md": "hello\n", "src/app.ts": "export const a = 1;\n" });
  dirs.push(root);
  commitFiles(root, { "src/app.ts": "export const a = 2;\n" }, "second");
  writeFiles(root, { "src/staged.ts": "staged\n" });
  git(root, "add", "src/staged.ts");
  writeFiles(root, { "README.md": "hello, edited\n", "notes.txt": "mine\n" });
  return root;
}

describe("createTaskWorktree", () => {
  it("checks out devflow/<id> at HEAD under .devflow/worktrees without touching the user's checkout", async () => {
    const root = busyUserRepo();
    const before = checkoutState(root);
    const head = git(root, "rev-parse", "HEAD").trim();

    const ws = await createTaskWorktree({ repoRoot: root, taskId: "add-login" });

    expect(ws).toEqual({
      repoRoot: root,
      worktree: join(root, ".devflow", "worktrees", "add-login"),
      branch: "devflow/add-login",
      baseCommit: head,
      kind: "worktree",
      // ADR 0025: a repository of its own (was: a linked worktree with `.git/worktrees/add-login`).
      gitLink: {
        gitDir: join(ws.worktree, ".git"),
        gitFile: null,
        commonDir: join(ws.worktree, ".git"),
      },
      // The index its checkout of the base wrote, read before any coder ran (issue 11, stop 47).
      baseIndex: { bytes: readFileSync(join(ws.worktree, ".git", "index")), mtimeMs: expect.any(Number) },
    });
    // Nothing of the user's repository is reachable through the checkout's git: no remote, no
    // user refs, no worktree bookkeeping in the user's .git; only the task branch was created there.
    expect(git(ws.worktree, "remote")).toBe("");
    expect(git(ws.worktree, "for-each-ref", "--format=%(refname)")).toBe("refs/heads/devflow/add-login\n");
    expect(existsSync(join(root, ".git", "worktrees"))).toBe(false);
    expect(git(root, "rev-parse", "devflow/add-login").trim()).toBe(head);
    expect(git(ws.worktree, "rev-parse", "--git-common-dir").trim()).toBe(".git");
    expect(git(ws.worktree, "symbolic-ref", "--short", "HEAD").trim()).toBe("devflow/add-login");
    expect(git(ws.worktree, "rev-parse", "HEAD").trim()).toBe(head);
    // The worktree has the committed content, not the user's uncommitted edits.
    expect(readFileSync(join(ws.worktree, "README.md"), "utf8")).toBe("hello\n");
    expect(existsSync(join(ws.worktree, "notes.txt"))).toBe(false);
    expect(checkoutState(root)).toBe(before);

    // Work and a commit in the checkout leave the user's repository alone, its task branch too:
    // only devflow moves that (was: the coder's commit moved the user's devflow/add-login).
    writeFiles(ws.worktree, {
      "src/login.ts": "export const login = true;\n",
      "README.md": "changed by coder\n",
    });
    await snapshotTree(ws.worktree);
    const sha = await commitAll(ws.worktree, "devflow: add login");
    expect(sha).not.toBeNull();
    expect(git(ws.worktree, "rev-parse", "devflow/add-login").trim()).toBe(sha);
    expect(git(root, "rev-parse", "devflow/add-login").trim()).toBe(head);
    expect(checkoutState(root)).toBe(before);
    expect(readFileSync(join(root, "README.md"), "utf8")).toBe("hello, edited\n");
  });

  // The link of a new checkout is no longer asked of git (two processes per task, issue 11): what
  // devflow records must be what git answers there, also when the repository is reached through a
  // symlink (git reports the real path).
  it("records the new checkout's git link exactly as git reports it, through a symlinked path", async () => {
    const real = makeRepo({ "a.txt": "a\n" });
    dirs.push(real);
    const linkDir = mkdtempSync(join(tmpdir(), "devflow-link-"));
    dirs.push(linkDir);
    const root = join(linkDir, "repo");
    symlinkSync(real, root);
    const ws = await createTaskWorktree({ repoRoot: root, taskId: "linked" });
    expect(ws.gitLink).toEqual({
      gitDir: git(ws.worktree, "rev-parse", "--absolute-git-dir").trim(),
      gitFile: null,
      commonDir: resolve(ws.worktree, git(ws.worktree, "rev-parse", "--git-common-dir").trim()),
    });
    expect(checkGitLink(ws.worktree)).toEqual([]);
  });

  it("refuses a task whose branch already exists", async () => {
    const root = busyUserRepo();
    git(root, "branch", "devflow/dup");
    await expect(createTaskWorktree({ repoRoot: root, taskId: "dup" })).rejects.toThrow(
      `branch devflow/dup already exists in ${root}; resume that task (--resume) or delete the branch`,
    );
    expect(existsSync(taskWorktreePath(root, "dup"))).toBe(false);
  });

  it("refuses a task whose folder already exists", async () => {
    const root = busyUserRepo();
    const folder = taskWorktreePath(root, "taken");
    mkdirSync(folder, { recursive: true });
    await expect(createTaskWorktree({ repoRoot: root, taskId: "taken" })).rejects.toThrow(
      `task checkout folder already exists: ${folder}`,
    );
    expect(git(root, "branch", "--list", "devflow/taken")).toBe("");
  });

  it("refuses a task id that is not a safe branch/folder name", async () => {
    const root = busyUserRepo();
    await expect(createTaskWorktree({ repoRoot: root, taskId: "../escape" })).rejects.toThrow(
      "invalid task id",
    );
    await expect(createTaskWorktree({ repoRoot: root, taskId: "x.lock" })).rejects.toThrow("invalid task id");
  });
});

describe("openTaskWorktree", () => {
  it("reopens an existing task worktree", async () => {
    const root = busyUserRepo();
    const created = await createTaskWorktree({ repoRoot: root, taskId: "t1" });
    const reopened = await openTaskWorktree({ repoRoot: root, taskId: "t1", baseCommit: created.baseCommit });
    // Without the base's index: a reopened checkout's index may be a coder's.
    const { baseIndex, ...made } = created;
    expect(baseIndex).toBeDefined();
    expect(reopened).toEqual(made);
  });

  it("says the worktree is gone when its folder was deleted", async () => {
    const root = busyUserRepo();
    const created = await createTaskWorktree({ repoRoot: root, taskId: "t2" });
    rmSync(created.worktree, { recursive: true, force: true });
    await expect(
      openTaskWorktree({ repoRoot: root, taskId: "t2", baseCommit: created.baseCommit }),
    ).rejects.toThrow("the checkout of task t2 is gone");
  });

  it("refuses a plain folder that is not the checkout devflow created", async () => {
    const root = busyUserRepo();
    const head = git(root, "rev-parse", "HEAD").trim();
    mkdirSync(taskWorktreePath(root, "t3"), { recursive: true });
    await expect(openTaskWorktree({ repoRoot: root, taskId: "t3", baseCommit: head })).rejects.toThrow(
      `${join(taskWorktreePath(root, "t3"), ".git")} is no longer the clone's git directory`,
    );
  });

  it("refuses a worktree that was switched to another branch", async () => {
    const root = busyUserRepo();
    const created = await createTaskWorktree({ repoRoot: root, taskId: "t4" });
    git(created.worktree, "checkout", "--quiet", "-b", "elsewhere");
    await expect(
      openTaskWorktree({ repoRoot: root, taskId: "t4", baseCommit: created.baseCommit }),
    ).rejects.toThrow("is on branch elsewhere, expected devflow/t4");
  });

  it("refuses an unknown base commit", async () => {
    const root = busyUserRepo();
    await createTaskWorktree({ repoRoot: root, taskId: "t5" });
    await expect(
      openTaskWorktree({
        repoRoot: root,
        taskId: "t5",
        baseCommit: "0123456789abcdef0123456789abcdef01234567",
      }),
    ).rejects.toThrow("base commit 0123456789abcdef0123456789abcdef01234567 of devflow/t5 is not in");
  });
});

describe("removeTaskWorktree", () => {
  it("removes the checkout and its branch", async () => {
    const root = busyUserRepo();
    const before = checkoutState(root);
    const ws = await createTaskWorktree({ repoRoot: root, taskId: "gone" });
    writeFiles(ws.worktree, { "dirty.txt": "x" });
    await removeTaskWorktree({ repoRoot: root, taskId: "gone" });
    expect(existsSync(ws.worktree)).toBe(false);
    expect(git(root, "worktree", "list", "--porcelain")).not.toContain("gone");
    expect(git(root, "branch", "--list", "devflow/gone")).toBe("");
    expect(checkoutState(root)).toBe(before);
    // The same task id can be started again afterwards.
    await expect(createTaskWorktree({ repoRoot: root, taskId: "gone" })).resolves.toMatchObject({
      kind: "worktree",
    });
  });
});
