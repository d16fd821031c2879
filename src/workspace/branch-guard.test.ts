import { afterEach, describe, expect, it } from "vitest";
import { git, makeRepo, removeDir, writeFiles } from "../../test/support/test-repo.js";
import { taskBranchFindings } from "./branch-guard.js";
import { commitOnTaskBranch, headCommit } from "./commits.js";
import { snapshotTree } from "./snapshot.js";
import { createTaskWorktree } from "./task-worktree.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDir(dir);
});

const TASK = "guard-test";
const REF = `refs/heads/devflow/${TASK}`;

async function taskWorktree() {
  const root = makeRepo({ "README.md": "hello\n" });
  dirs.push(root);
  return createTaskWorktree({ repoRoot: root, taskId: TASK });
}

describe("commitOnTaskBranch", () => {
  it("commits on top of the expected head and moves only refs/heads/devflow/<task_id>", async () => {
    const ws = await taskWorktree();
    writeFiles(ws.worktree, { "a.txt": "a\n" });
    const tree = await snapshotTree(ws.worktree);
    const sha = await commitOnTaskBranch(ws.worktree, TASK, ws.baseCommit, tree, "devflow: add a");
    expect(sha).not.toBeNull();
    expect(await headCommit(ws.worktree)).toBe(sha);
    expect(git(ws.worktree, "rev-parse", `${sha}^`).trim()).toBe(ws.baseCommit);
    expect(git(ws.worktree, "status", "--porcelain").trim()).toBe("");
    expect(await commitOnTaskBranch(ws.worktree, TASK, sha ?? "", tree, "devflow: nothing")).toBeNull();
  });

  it("commits exactly the given (verified) tree, never what the worktree holds later", async () => {
    const ws = await taskWorktree();
    writeFiles(ws.worktree, { "a.txt": "verified\n" });
    const verified = await snapshotTree(ws.worktree);
    writeFiles(ws.worktree, { "a.txt": "changed after verification\n", "evil.txt": "x\n" });
    const sha = await commitOnTaskBranch(ws.worktree, TASK, ws.baseCommit, verified, "devflow: add a");
    expect(git(ws.worktree, "rev-parse", `${sha}^{tree}`).trim()).toBe(verified);
    expect(git(ws.worktree, "show", `${sha}:a.txt`)).toBe("verified\n");
    expect(git(ws.worktree, "ls-tree", "--name-only", sha ?? "")).not.toContain("evil.txt");
  });

  it("refuses when the branch moved away from the expected head (compare-and-swap)", async () => {
    const ws = await taskWorktree();
    writeFiles(ws.worktree, { "a.txt": "a\n" });
    git(ws.worktree, "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qam", "x", "--allow-empty");
    const moved = (await headCommit(ws.worktree)).trim();
    expect(moved).not.toBe(ws.baseCommit);
    await expect(
      commitOnTaskBranch(ws.worktree, TASK, ws.baseCommit, await snapshotTree(ws.worktree), "devflow: fix"),
    ).rejects.toMatchObject({
      code: "COMMIT_REFUSED",
    });
    expect(git(ws.worktree, "rev-parse", REF).trim()).toBe(moved);
  });

  it("refuses any other devflow/* branch", async () => {
    const ws = await taskWorktree();
    git(ws.worktree, "checkout", "-qb", "devflow/other");
    writeFiles(ws.worktree, { "a.txt": "a\n" });
    await expect(
      commitOnTaskBranch(ws.worktree, TASK, ws.baseCommit, await snapshotTree(ws.worktree), "devflow: fix"),
    ).rejects.toThrow(/refs\/heads\/devflow\/other, not refs\/heads\/devflow\/guard-test/);
  });
});

describe("taskBranchFindings", () => {
  it("is empty for an intact branch with commits added on top", async () => {
    const ws = await taskWorktree();
    git(ws.worktree, "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qm", "on top", "--allow-empty");
    const head = await headCommit(ws.worktree);
    expect(await taskBranchFindings(ws.worktree, TASK, { head, since: ws.baseCommit })).toEqual([]);
  });

  it("reports a rewritten history, a moved ref and a switched branch", async () => {
    const ws = await taskWorktree();
    git(
      ws.worktree,
      "-c",
      "user.name=x",
      "-c",
      "user.email=x@x",
      "commit",
      "-q",
      "--amend",
      "-m",
      "rewritten",
    );
    const rewritten = await headCommit(ws.worktree);
    const findings = await taskBranchFindings(ws.worktree, TASK, { head: rewritten, since: ws.baseCommit });
    expect(findings).toEqual([expect.stringMatching(/was rewritten/)]);

    const moved = await taskBranchFindings(ws.worktree, TASK, { head: ws.baseCommit, since: ws.baseCommit });
    expect(moved).toEqual([expect.stringMatching(/moved to/)]);

    git(ws.worktree, "checkout", "-qb", "devflow/other");
    const switched = await taskBranchFindings(ws.worktree, TASK, { head: rewritten, since: ws.baseCommit });
    expect(switched).toContainEqual(expect.stringMatching(/HEAD .* points at refs\/heads\/devflow\/other/));
  });
});
