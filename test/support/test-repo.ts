/**
 * Helpers for this module's tests: real repositories made with the real git CLI in temp dirs.
 * Not exported from index.ts.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { onTestFinished } from "vitest";

/** Runs git like a user would, with a fixed identity so the tests never depend on ~/.gitconfig. */
export function git(cwd: string, ...args: string[]): string {
  const env = { ...process.env };
  for (const key of ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"]) delete env[key];
  return execFileSync(
    "git",
    [
      "-c",
      "user.name=Test User",
      "-c",
      "user.email=user@example.com",
      "-c",
      "commit.gpgSign=false",
      // No `git gc --auto` detached after a commit: on the 20,000-file repository it was still
      // writing packs into .git when the test's cleanup removed the folder (ENOTEMPTY, CI stop 30).
      "-c",
      "gc.auto=0",
      "-c",
      "maintenance.auto=false",
      ...args,
    ],
    { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
  );
}

/** A fresh temp dir (real path, so it compares equal to what git reports). */
export function tempDir(prefix = "devflow-ws-"): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

export function removeDir(path: string): void {
  rmSync(path, { recursive: true, force: true });
}

export function writeFiles(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    const full = join(root, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
  }
}

/** A temp folder holding `files` (no git: for code that reads files, not history), removed when the current test ends. */
export function folderWith(files: Record<string, string>, prefix = "devflow-files-"): string {
  const dir = tempDir(prefix);
  writeFiles(dir, files);
  onTestFinished(() => removeDir(dir));
  return dir;
}

/** `git init` on branch main plus one commit of `files`. */
export function makeRepo(files: Record<string, string> = { "README.md": "hello\n" }): string {
  const root = tempDir();
  git(root, "init", "--quiet", "--initial-branch=main");
  writeFiles(root, files);
  git(root, "add", "--all");
  git(root, "commit", "--quiet", "-m", "initial");
  return root;
}

export function commitFiles(root: string, files: Record<string, string>, message: string): string {
  writeFiles(root, files);
  git(root, "add", "--all");
  git(root, "commit", "--quiet", "-m", message);
  return git(root, "rev-parse", "HEAD").trim();
}

/**
 * Everything about a checkout that devflow must never change: status (working tree and index),
 * the staged content, the current branch and HEAD.
 */
export function checkoutState(root: string): string {
  return [
    git(root, "status", "--porcelain=v1", "--untracked-files=all"),
    git(root, "ls-files", "--stage"),
    git(root, "symbolic-ref", "--short", "HEAD"),
    git(root, "rev-parse", "HEAD"),
  ].join("\n---\n");
}

/** Puts process.env back to `saved` in place (reassigning process.env would detach it from Node). */
export function restoreEnv(saved: NodeJS.ProcessEnv): void {
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
  Object.assign(process.env, saved);
}
