import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { git, makeRepo, removeDir, restoreEnv, tempDir, writeFiles } from "../../test/support/test-repo.js";
import { commitAll, commitsSince, headCommit } from "./commits.js";
import { createTaskWorktree } from "./task-worktree.js";

const dirs: string[] = [];
const savedEnv = { ...process.env };
afterEach(() => {
  restoreEnv(savedEnv);
  for (const dir of dirs.splice(0)) removeDir(dir);
});

async function taskWorktree(files: Record<string, string> = { "README.md": "hello\n" }) {
  const root = makeRepo(files);
  dirs.push(root);
  return createTaskWorktree({ repoRoot: root, taskId: "commit-test" });
}

describe("commitAll", () => {
  it("returns null when nothing changed", async () => {
    const ws = await taskWorktree({ ".gitignore": "*.log\n", "README.md": "hello\n" });
    expect(await commitAll(ws.worktree, "devflow: nothing")).toBeNull();
    // An ignored file is not a change either.
    writeFiles(ws.worktree, { "run.log": "noise\n" });
    expect(await commitAll(ws.worktree, "devflow: nothing")).toBeNull();
    expect(await headCommit(ws.worktree)).toBe(ws.baseCommit);
  });

  it("commits tracked, deleted and untracked changes as devflow, without any user git identity", async () => {
    const ws = await taskWorktree({ ".gitignore": "*.log\n", "README.md": "hello\n", "old.txt": "old\n" });
    // A machine with no identity and signing forced on would break a commit that relied on it.
    const globalConfig = join(tempDir(), "gitconfig");
    dirs.push(join(globalConfig, ".."));
    writeFileSync(globalConfig, "[commit]\n\tgpgSign = true\n[gpg]\n\tformat = ssh\n");
    process.env.GIT_CONFIG_GLOBAL = globalConfig;
    process.env.GIT_CONFIG_NOSYSTEM = "1";
    process.env.GIT_AUTHOR_NAME = "Someone Else";
    // Hooks must not run (or block) on the orchestrator's commit; --no-verify alone would still
    // run prepare-commit-msg.
    for (const hook of ["pre-commit", "prepare-commit-msg"]) {
      writeFiles(ws.repoRoot, { [`.git/hooks/${hook}`]: "#!/bin/sh\nexit 1\n" });
      chmodSync(join(ws.repoRoot, ".git/hooks", hook), 0o755);
    }
    writeFiles(ws.worktree, { "README.md": "changed\n", "new.txt": "new\n", "debug.log": "ignored\n" });
    git(ws.worktree, "rm", "--quiet", "old.txt");

    const sha = await commitAll(ws.worktree, "devflow: change things");

    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    expect(await headCommit(ws.worktree)).toBe(sha);
    expect(git(ws.worktree, "log", "-1", "--format=%an <%ae>|%cn <%ce>|%s").trim()).toBe(
      "devflow <devflow@localhost>|devflow <devflow@localhost>|devflow: change things",
    );
    expect(git(ws.worktree, "show", "--name-status", "--format=", "HEAD").trim().split("\n")).toEqual([
      "M\tREADME.md",
      "A\tnew.txt",
      "D\told.txt",
    ]);
    expect(git(ws.worktree, "status", "--porcelain")).toBe("");
  });

  it("refuses to commit on a branch that is not devflow's", async () => {
    const root = makeRepo();
    dirs.push(root);
    writeFiles(root, { "README.md": "user edit\n" });
    await expect(commitAll(root, "devflow: oops")).rejects.toThrow(
      `refusing to commit in ${root}: it is on branch main, not a devflow/<task> branch`,
    );
    expect(git(root, "status", "--porcelain")).toBe(" M README.md\n");
    expect(git(root, "rev-list", "--count", "HEAD").trim()).toBe("1");
  });
});

describe("commitsSince", () => {
  it("lists the coder's commits after the base, oldest first", async () => {
    const ws = await taskWorktree();
    expect(await commitsSince(ws.worktree, ws.baseCommit)).toEqual([]);
    writeFiles(ws.worktree, { "a.txt": "a\n" });
    git(ws.worktree, "add", "a.txt");
    git(ws.worktree, "commit", "--quiet", "-m", "first: add a");
    const first = git(ws.worktree, "rev-parse", "HEAD").trim();
    writeFiles(ws.worktree, { "b.txt": "b\n" });
    git(ws.worktree, "add", "b.txt");
    git(ws.worktree, "commit", "--quiet", "-m", "second | with; odd chars");
    const second = git(ws.worktree, "rev-parse", "HEAD").trim();

    expect(await commitsSince(ws.worktree, ws.baseCommit)).toEqual([
      { sha: first, subject: "first: add a" },
      { sha: second, subject: "second | with; odd chars" },
    ]);
  });
});
