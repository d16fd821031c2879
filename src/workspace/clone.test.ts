import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { git, makeRepo, removeDir, tempDir, writeFiles } from "../../test/support/test-repo.js";
import { cloneForTask, openTaskClone } from "./clone.js";
import { commitAll } from "./commits.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDir(dir);
});

/** A bare "remote" with one commit, reachable through a file:// URL. */
function bareRemote(): { url: string; bare: string; head: string } {
  const source = makeRepo({ "README.md": "remote\n", "src/a.ts": "export {};\n" });
  const parent = tempDir();
  dirs.push(source, parent);
  const bare = join(parent, "remote.git");
  git(parent, "clone", "--quiet", "--bare", source, bare);
  return { url: pathToFileURL(bare).href, bare, head: git(bare, "rev-parse", "HEAD").trim() };
}

describe("cloneForTask", () => {
  it("clones a file:// URL into <baseDir>/<taskId> on branch devflow/<taskId>", async () => {
    const { url, bare, head } = bareRemote();
    const parent = tempDir();
    dirs.push(parent);
    const baseDir = join(parent, "work");
    const remoteRefs = git(bare, "show-ref");

    const ws = await cloneForTask({ url, baseDir, taskId: "fix-bug" });

    const target = join(baseDir, "fix-bug");
    // ADR 0025: the clone is devflow's stand-in for the user's repository; the coder gets its own
    // checkout of it (was: the coder worked in the clone itself, on devflow/fix-bug).
    const checkout = join(target, ".devflow", "worktrees", "fix-bug");
    expect(ws).toEqual({
      repoRoot: target,
      worktree: checkout,
      branch: "devflow/fix-bug",
      baseCommit: head,
      kind: "clone",
      gitLink: { gitDir: join(checkout, ".git"), gitFile: null, commonDir: join(checkout, ".git") },
      baseIndex: { bytes: expect.any(Buffer), mtimeMs: expect.any(Number) },
    });
    expect(git(checkout, "symbolic-ref", "--short", "HEAD").trim()).toBe("devflow/fix-bug");
    expect(git(target, "rev-parse", "devflow/fix-bug").trim()).toBe(head);
    expect(git(target, "remote", "get-url", "origin").trim()).toBe(url);
    expect(git(checkout, "remote")).toBe("");
    // .devflow lives in the clone and is invisible to git there.
    expect(existsSync(join(target, ".devflow", ".gitignore"))).toBe(true);
    writeFiles(target, { ".devflow/iterate/fix-bug/task_artifact.json": "{}" });
    expect(git(target, "status", "--porcelain", "--untracked-files=all")).toBe("");
    // Committing in the coder's checkout reaches neither the clone's task branch nor the remote.
    writeFiles(checkout, { "src/b.ts": "export const b = 1;\n" });
    expect(await commitAll(checkout, "devflow: b")).not.toBeNull();
    expect(git(target, "rev-parse", "devflow/fix-bug").trim()).toBe(head);
    expect(git(bare, "show-ref")).toBe(remoteRefs);
  });

  it("refuses an existing target folder and leaves it alone", async () => {
    const { url } = bareRemote();
    const baseDir = tempDir();
    dirs.push(baseDir);
    mkdirSync(join(baseDir, "taken"));
    writeFiles(baseDir, { "taken/keep.txt": "mine" });
    await expect(cloneForTask({ url, baseDir, taskId: "taken" })).rejects.toThrow(
      `refusing to clone into ${join(baseDir, "taken")}: the folder already exists`,
    );
    expect(readdirSync(join(baseDir, "taken"))).toEqual(["keep.txt"]);
  });

  it("fails clearly on an unreachable URL and leaves no folder behind", async () => {
    const baseDir = tempDir();
    dirs.push(baseDir);
    const url = pathToFileURL(join(baseDir, "does-not-exist.git")).href;
    await expect(cloneForTask({ url, baseDir, taskId: "t" })).rejects.toThrow(`could not clone ${url}`);
    expect(existsSync(join(baseDir, "t"))).toBe(false);
  });

  it("keeps credentials in the URL out of the error message", async () => {
    const baseDir = tempDir();
    dirs.push(baseDir);
    // Port 9 on 127.0.0.1 refuses connections at once; nothing leaves the machine.
    const url = "http://user:s3cr3t-token@127.0.0.1:9/repo.git";
    const error = await cloneForTask({ url, baseDir, taskId: "t" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain("could not clone http://***@127.0.0.1:9/repo.git");
    expect((error as Error).message).not.toContain("s3cr3t-token");
  });

  it("refuses a remote without commits", async () => {
    const parent = tempDir();
    dirs.push(parent);
    const bare = join(parent, "empty.git");
    mkdirSync(bare);
    git(bare, "init", "--quiet", "--bare");
    await expect(
      cloneForTask({ url: pathToFileURL(bare).href, baseDir: join(parent, "work"), taskId: "t" }),
    ).rejects.toThrow("has no commits yet");
    expect(existsSync(join(parent, "work", "t"))).toBe(false);
  });
});

describe("openTaskClone", () => {
  it("reopens a clone and refuses one that is gone", async () => {
    const { url } = bareRemote();
    const baseDir = tempDir();
    dirs.push(baseDir);
    const ws = await cloneForTask({ url, baseDir, taskId: "again" });
    // Without the base's index: a reopened checkout's index may be a coder's.
    const { baseIndex: _, ...made } = ws;
    await expect(
      openTaskClone({ cloneDir: ws.repoRoot, taskId: "again", baseCommit: ws.baseCommit }),
    ).resolves.toEqual(made);
    removeDir(ws.repoRoot);
    await expect(
      openTaskClone({ cloneDir: ws.repoRoot, taskId: "again", baseCommit: ws.baseCommit }),
    ).rejects.toThrow("the clone of task again is gone");
  });
});
