import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  checkoutState,
  commitFiles,
  git,
  makeRepo,
  removeDir,
  writeFiles,
} from "../../test/support/test-repo.js";
import { worktreesDir } from "../home/paths.js";
import { withBaseWorktree } from "./base-worktree.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDir(dir);
});

function repoWithHistory(): { root: string; base: string } {
  const root = makeRepo({ "value.txt": "base\n" });
  dirs.push(root);
  const base = git(root, "rev-parse", "HEAD").trim();
  commitFiles(root, { "value.txt": "later\n" }, "later");
  writeFiles(root, { "value.txt": "uncommitted\n" });
  return { root, base };
}

function registeredWorktrees(root: string): string {
  return git(root, "worktree", "list", "--porcelain");
}

describe("withBaseWorktree", () => {
  it("runs fn in a detached checkout of the base commit and removes it afterwards", async () => {
    const { root, base } = repoWithHistory();
    const before = checkoutState(root);
    let seen: string | undefined;

    const result = await withBaseWorktree(root, base, async (dir) => {
      seen = dir;
      writeFiles(dir, { "build/output.txt": "made by the baseline run\n" });
      expect(git(dir, "rev-parse", "HEAD").trim()).toBe(base);
      return readFileSync(join(dir, "value.txt"), "utf8");
    });

    expect(result).toBe("base\n");
    expect(seen?.startsWith(join(worktreesDir(root), ".base-"))).toBe(true);
    expect(existsSync(seen ?? "")).toBe(false);
    expect(registeredWorktrees(root)).not.toContain(".base-");
    expect(readdirSync(worktreesDir(root))).toEqual([]);
    expect(checkoutState(root)).toBe(before);
  });

  it("removes the worktree when fn throws, and rethrows fn's error", async () => {
    const { root, base } = repoWithHistory();
    let seen = "";
    await expect(
      withBaseWorktree(root, base, async (dir) => {
        seen = dir;
        throw new Error("baseline exploded");
      }),
    ).rejects.toThrow("baseline exploded");
    expect(seen).not.toBe("");
    expect(existsSync(seen)).toBe(false);
    expect(registeredWorktrees(root)).not.toContain(".base-");
  });

  it("fails clearly for an unknown commit and leaves nothing behind", async () => {
    const { root } = repoWithHistory();
    await expect(withBaseWorktree(root, "0".repeat(40), async () => "never")).rejects.toThrow(
      "git worktree add",
    );
    expect(readdirSync(worktreesDir(root))).toEqual([]);
  });
});
