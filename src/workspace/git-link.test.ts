import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { git, makeRepo, removeDir } from "../../test/support/test-repo.js";
import { runGit } from "./git.js";
import { checkGitLink } from "./git-link.js";
import { createTaskWorktree, openTaskWorktree } from "./task-worktree.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDir(dir);
});

describe("the task worktree's git link (ADR 0022)", () => {
  it("records the real git dir, keeps devflow's git on it and reports a rewritten .git file", async () => {
    const root = makeRepo({ "a.txt": "a\n" });
    dirs.push(root);
    const ws = await createTaskWorktree({ repoRoot: root, taskId: "link" });
    expect(ws.gitLink?.gitDir).toMatch(/\.git\/worktrees\/link$/);
    expect(ws.gitLink?.gitFile).toBe(readFileSync(join(ws.worktree, ".git"), "utf8"));
    expect(checkGitLink(ws.worktree)).toEqual([]);

    // The coder points the worktree at a repository of its own.
    const evil = mkdtempSync(join(tmpdir(), "devflow-evil-"));
    dirs.push(evil);
    git(evil, "init", "-q");
    writeFileSync(join(ws.worktree, ".git"), `gitdir: ${join(evil, ".git")}\n`);

    expect((await runGit(ws.worktree, ["rev-parse", "--absolute-git-dir"])).trim()).toBe(ws.gitLink?.gitDir);
    expect(checkGitLink(ws.worktree).join("\n")).toMatch(/\.git no longer links the worktree/);
    await expect(
      openTaskWorktree({ repoRoot: root, taskId: "link", baseCommit: ws.baseCommit }),
    ).rejects.toThrow(/does not link the worktree/);
  });
});
