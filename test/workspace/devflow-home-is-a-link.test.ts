import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cli } from "../support/cli.js";
import { git, makeRepo, removeDir, tempDir } from "../support/test-repo.js";

/**
 * Regression (session-17 review): a repository that tracks `.devflow` as a symbolic link (or a
 * coder without a mount namespace that plants one) made devflow keep its state wherever the link
 * led, and its checkout reuse and `devflow clean` delete task-id-like folders there: files outside
 * the repository. Cause: devflow's home was taken as `<repo>/.devflow` without looking at what it
 * is. Fix: `assertGitRepo`, which every command runs first, refuses a `.devflow` that is a link with
 * one line saying to remove it; nothing is created, read or deleted through it.
 */
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDir(dir);
});

describe("a .devflow that is a symbolic link", () => {
  it("is refused by every command before it is used: clean deletes nothing where it leads", async () => {
    const outside = tempDir("devflow-outside-");
    dirs.push(outside);
    // What the link leads to looks like devflow's home with an idle checkout in it.
    mkdirSync(join(outside, "worktrees", ".idle", "t-20260101-000000-abcd"), { recursive: true });
    writeFileSync(join(outside, "worktrees", ".idle", "t-20260101-000000-abcd", "precious.txt"), "keep\n");
    const repo = makeRepo({ "a.js": "export const a = 1;\n" });
    dirs.push(repo);
    symlinkSync(outside, join(repo, ".devflow"));
    git(repo, "add", ".devflow");
    git(repo, "-c", "user.name=u", "-c", "user.email=u@u", "commit", "-qm", "track the link");

    for (const argv of [
      ["clean", "--idle", "-r", repo],
      ["clean", "--older-than", "0d", "-r", repo],
      ["runs", "-r", repo],
    ]) {
      const run = await cli(...argv);
      expect(run.code, `${argv.join(" ")}: ${run.err}`).toBe(2);
      expect(run.err.trim().split("\n"), argv.join(" ")).toHaveLength(1);
      expect(run.err).toContain(".devflow is a symbolic link");
    }
    expect(existsSync(join(outside, "worktrees", ".idle", "t-20260101-000000-abcd", "precious.txt"))).toBe(
      true,
    );
    expect(readdirSync(outside).sort()).toEqual(["worktrees"]);
  });
});
