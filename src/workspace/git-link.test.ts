import { mkdtempSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { git, makeRepo, removeDir } from "../../test/support/test-repo.js";
import { checkGitLink } from "./git-link.js";
import { createTaskWorktree, openTaskWorktree } from "./task-worktree.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDir(dir);
});

describe("the task checkout's git link (ADR 0022, adapted by ADR 0025)", () => {
  it("records the checkout's own .git directory, keeps devflow's git on it and reports a .git replaced by a link", async () => {
    const root = makeRepo({ "a.txt": "a\n" });
    dirs.push(root);
    const ws = await createTaskWorktree({ repoRoot: root, taskId: "link" });
    // Was `.git/worktrees/link` in the user's repository: the checkout is now a repository of its own.
    expect(ws.gitLink).toEqual({
      gitDir: join(ws.worktree, ".git"),
      gitFile: null,
      commonDir: join(ws.worktree, ".git"),
    });
    expect(checkGitLink(ws.worktree)).toEqual([]);

    // The coder points the checkout at a repository of its own.
    const evil = mkdtempSync(join(tmpdir(), "devflow-evil-"));
    dirs.push(evil);
    git(evil, "init", "-q");
    renameSync(join(ws.worktree, ".git"), join(evil, "stolen.git"));
    writeFileSync(join(ws.worktree, ".git"), `gitdir: ${join(evil, ".git")}\n`);

    // The pinned git dir is the checkout's own `.git`, so replacing it is the finding (snapshots and
    // the commit never read it: they use devflow's repository, ADR 0024/0025).
    expect(checkGitLink(ws.worktree).join("\n")).toMatch(/\.git is no longer the clone's git directory/);
    await expect(
      openTaskWorktree({ repoRoot: root, taskId: "link", baseCommit: ws.baseCommit }),
    ).rejects.toThrow(/is no longer the clone's git directory/);
  });
});
