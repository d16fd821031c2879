import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { git, makeRepo, removeDir, tempDir } from "../../test/support/test-repo.js";
import { assertGitRepo } from "./repo.js";

const dirs: string[] = [];
const track = (dir: string): string => {
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDir(dir);
});

describe("assertGitRepo", () => {
  it("returns the top level of the repository, also from a subfolder", async () => {
    const root = track(makeRepo({ "src/a.ts": "export {};\n" }));
    expect(await assertGitRepo(root)).toBe(root);
    expect(await assertGitRepo(join(root, "src"))).toBe(root);
  });

  it("says so when the path does not exist", async () => {
    const missing = join(track(tempDir()), "nope");
    await expect(assertGitRepo(missing)).rejects.toThrow(`repository path does not exist: ${missing}`);
  });

  it("says so when the path is a file", async () => {
    const file = join(track(tempDir()), "file.txt");
    writeFileSync(file, "x");
    await expect(assertGitRepo(file)).rejects.toThrow("is not a directory");
  });

  it("tells the user to run git init in a plain folder", async () => {
    const dir = track(tempDir());
    const error = await assertGitRepo(dir).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "REPO_UNUSABLE", category: "workspace" });
    expect((error as Error).message).toBe(
      `not a git repository: ${dir} (run \`git init\` there, or pass --repo <path>)`,
    );
  });

  it("tells the user to commit once in a repository without commits", async () => {
    const dir = track(tempDir());
    git(dir, "init", "--quiet");
    await expect(assertGitRepo(dir)).rejects.toThrow(
      "has no commits yet (commit once so devflow can branch from HEAD)",
    );
  });

  it("refuses a bare repository", async () => {
    const bare = join(track(tempDir()), "bare.git");
    mkdirSync(bare);
    git(bare, "init", "--quiet", "--bare");
    await expect(assertGitRepo(bare)).rejects.toThrow("bare repository");
  });

  it("refuses a .git folder, and reads a repository whose HEAD is a branch without commits as unborn", async () => {
    const root = track(makeRepo({ "a.txt": "a\n" }));
    await expect(assertGitRepo(join(root, ".git"))).rejects.toThrow("bare repository or a .git folder");
    git(root, "symbolic-ref", "HEAD", "refs/heads/never-born");
    await expect(assertGitRepo(root)).rejects.toThrow(`git repository ${root} has no commits yet`);
  });
});
