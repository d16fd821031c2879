/**
 * Regression: linkDependencies asked the user's global git config whether `node_modules` is ignored.
 * Cause: it ran a bare `git check-ignore`, which reads the user's `core.excludesFile`; devflow's own
 * git (scope, snapshot, commit) reads no global config, so a folder ignored only globally got
 * linked and then showed up as a new untracked file of the coder's change. A bare git also reads
 * whatever the coder wrote into its checkout's `.git/config`. Fix: ask through devflow's own git
 * (`isGitIgnored`: no hooks, `core.fsmonitor=false`, no global config): the same view of the ignore
 * rules the commit uses.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { linkDependencies } from "./link-dependencies.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function git(cwd: string, ...args: string[]): void {
  execFileSync("git", args, { cwd, stdio: "ignore" });
}

describe("linkDependencies", () => {
  it("links an ignored node_modules without running the checkout's core.fsmonitor command", async () => {
    const root = mkdtempSync(join(tmpdir(), "devflow-linkdeps-"));
    dirs.push(root);
    const repo = join(root, "repo");
    const checkout = join(root, "checkout");
    mkdirSync(join(repo, "node_modules"), { recursive: true });
    mkdirSync(checkout);
    git(checkout, "init", "-q");
    // No trailing slash: the link is a symlink, which a directory-only pattern would not ignore.
    writeFileSync(join(checkout, ".gitignore"), "node_modules\n");
    git(checkout, "add", ".gitignore");
    git(checkout, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "base");
    const marker = join(root, "fsmonitor-ran");
    const hook = join(root, "fsmonitor.sh");
    writeFileSync(hook, `#!/bin/sh\ntouch '${marker}'\n`);
    chmodSync(hook, 0o755);
    git(checkout, "config", "core.fsmonitor", hook);

    const linked = await linkDependencies(repo, checkout);

    expect(linked).toEqual(["node_modules"]);
    expect(lstatSync(join(checkout, "node_modules")).isSymbolicLink()).toBe(true);
    expect(existsSync(marker)).toBe(false);
  });

  it("does not link a folder ignored only by the user's global excludes file (the commit would see the link)", async () => {
    const root = mkdtempSync(join(tmpdir(), "devflow-linkdeps-"));
    dirs.push(root);
    const repo = join(root, "repo");
    const checkout = join(root, "checkout");
    mkdirSync(join(repo, "node_modules"), { recursive: true });
    mkdirSync(checkout);
    git(checkout, "init", "-q");
    writeFileSync(join(root, "global-ignore"), "node_modules\n");
    writeFileSync(
      join(root, "global-gitconfig"),
      `[core]\n\texcludesFile = ${join(root, "global-ignore")}\n`,
    );
    const saved = process.env.GIT_CONFIG_GLOBAL;
    process.env.GIT_CONFIG_GLOBAL = join(root, "global-gitconfig");
    try {
      expect(await linkDependencies(repo, checkout)).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.GIT_CONFIG_GLOBAL;
      else process.env.GIT_CONFIG_GLOBAL = saved;
    }
    expect(existsSync(join(checkout, "node_modules"))).toBe(false);
  });

  it("does not link a folder the checkout does not ignore", async () => {
    const root = mkdtempSync(join(tmpdir(), "devflow-linkdeps-"));
    dirs.push(root);
    const repo = join(root, "repo");
    const checkout = join(root, "checkout");
    mkdirSync(join(repo, "node_modules"), { recursive: true });
    mkdirSync(checkout);
    git(checkout, "init", "-q");

    expect(await linkDependencies(repo, checkout)).toEqual([]);
    expect(existsSync(join(checkout, "node_modules"))).toBe(false);
  });
});
