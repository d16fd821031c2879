import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTempRepo, type TempRepo } from "../../test/support/temp-git-repo.js";
import { ToolRefusal } from "./tool-refusal.js";
import { resolveInWorktree, resolveNewFileInWorktree } from "./worktree-path.js";

let repo: TempRepo;
beforeEach(async () => {
  repo = await makeTempRepo({ "src/app.ts": "export {};\n" });
  await writeFile(join(repo.outside, "secret.txt"), "outside\n");
  await symlink(join(repo.outside, "secret.txt"), join(repo.dir, "link-out.txt"));
  await symlink(repo.outside, join(repo.dir, "dir-out"));
  await symlink(join(repo.dir, "src", "app.ts"), join(repo.dir, "link-in.ts"));
});
afterEach(() => repo.cleanup());

describe("resolveInWorktree", () => {
  it("resolves a repo-relative path", async () => {
    const p = await resolveInWorktree(repo.dir, "src/app.ts");
    expect(p).toEqual({ absolute: join(repo.dir, "src/app.ts"), relative: "src/app.ts" });
  });

  it("refuses ../ climbing out, with a message that says what to use instead", async () => {
    await expect(resolveInWorktree(repo.dir, "../outside/secret.txt")).rejects.toThrow(ToolRefusal);
    await expect(resolveInWorktree(repo.dir, "src/../../outside/secret.txt")).rejects.toThrow(
      /climbs out of the worktree.*relative to the repository root/,
    );
  });

  it("refuses an absolute path outside the worktree but accepts one inside it", async () => {
    await expect(resolveInWorktree(repo.dir, join(repo.outside, "secret.txt"))).rejects.toThrow(
      /absolute path outside the worktree/,
    );
    expect((await resolveInWorktree(repo.dir, join(repo.dir, "src/app.ts"))).relative).toBe("src/app.ts");
  });

  it("refuses a symlink (file or directory) that leads outside, and allows one that stays inside", async () => {
    await expect(resolveInWorktree(repo.dir, "link-out.txt")).rejects.toThrow(
      /symlink.*outside the worktree/,
    );
    await expect(resolveInWorktree(repo.dir, "dir-out/secret.txt")).rejects.toThrow(
      /symlink.*outside the worktree/,
    );
    expect((await resolveInWorktree(repo.dir, "link-in.ts")).relative).toBe("link-in.ts");
  });

  it("says a missing file does not exist and how to find files", async () => {
    await expect(resolveInWorktree(repo.dir, "nope.ts")).rejects.toThrow(/does not exist.*list_files/);
  });
});

describe("resolveNewFileInWorktree", () => {
  it("accepts a new file in a directory that does not exist yet", async () => {
    expect((await resolveNewFileInWorktree(repo.dir, "tests/deep/new.test.ts")).relative).toBe(
      "tests/deep/new.test.ts",
    );
  });

  it("refuses a new file under a symlinked directory that points outside", async () => {
    await mkdir(join(repo.outside, "sub"));
    await expect(resolveNewFileInWorktree(repo.dir, "dir-out/sub/new.txt")).rejects.toThrow(
      /symlinked directory/,
    );
  });

  it("refuses ../ and the worktree root itself", async () => {
    await expect(resolveNewFileInWorktree(repo.dir, "../evil.txt")).rejects.toThrow(/climbs out/);
    await expect(resolveNewFileInWorktree(repo.dir, ".")).rejects.toThrow(/worktree root/);
  });
});
