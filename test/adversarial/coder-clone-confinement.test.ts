/**
 * Attack: the coder reaches the user's repository through its own checkout's git (issue 9,
 * class 7).
 *
 * Cause: the task checkout was a linked worktree of the user's repository, so its `.git` was the
 * user's: a coder running `git update-ref`, `git config`, writing `$(git rev-parse --git-path
 * hooks)` or `info/exclude` in its own checkout changed the user's refs, config, hooks and
 * excludes (the fingerprint then failed the run, but the damage was done), and `git push` through
 * a clone's `origin` remote would do the same to a clone.
 *
 * Fix (ADR 0025, src/workspace/task-worktree.ts): the coder's checkout is a repository of its own
 * (`git clone --shared` without the remote: the user's objects as alternates, no template, no
 * `origin`), with its own branch `devflow/<id>`. The user's `refs/heads/devflow/<id>` is moved only
 * by devflow (objects shipped as one pack from devflow's store, then compare-and-swap). The same
 * commands now change the coder's repository only: the correct fix completes and the user's `.git`
 * is byte-identical apart from the allowlist below.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { CORRECT_FIX, coderScript, runLane, TASK_ID, tempDir } from "../support/lane-harness.js";
import { withMountNamespaceOff } from "../support/mount-namespace-off.js";

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" }).trim();

/** Every file under `dir` as `path -> mode:sha256` (symlinks by target). */
function tree(dir: string, root = dir, out = new Map<string, string>()): Map<string, string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = lstatSync(path);
    if (stat.isDirectory()) tree(path, root, out);
    else {
      const body = stat.isSymbolicLink() ? readlinkSync(path) : readFileSync(path);
      out.set(
        relative(root, path),
        `${stat.mode.toString(8)}:${createHash("sha256").update(body).digest("hex")}`,
      );
    }
  }
  return out;
}

/**
 * What devflow itself may change in the user's `.git` (ADR 0025): the task branch, its reflog,
 * and the packs its commit adds. Everything else must be byte-identical.
 */
const ALLOWED = [
  new RegExp(`^refs/heads/devflow/${TASK_ID}$`),
  new RegExp(`^logs/refs/heads/devflow/${TASK_ID}$`),
  /^objects\/pack\/pack-[0-9a-f]+\.(pack|idx|rev)$/,
];

function gitDirChanges(before: Map<string, string>, after: Map<string, string>): string[] {
  const changes: string[] = [];
  for (const [path, hash] of after) {
    if (before.get(path) === hash) continue;
    const added = !before.has(path);
    // A pack may only be added, never rewritten.
    if (ALLOWED.some((re) => re.test(path)) && (added || !path.startsWith("objects/"))) continue;
    changes.push(`${path} ${added ? "added" : "changed"}`);
  }
  for (const path of before.keys()) if (!after.has(path)) changes.push(`${path} removed`);
  return changes;
}

async function runConfined(evil: string) {
  const repo = createFixtureRepo("csv-import");
  const main = git(repo, "rev-parse", "main");
  const before = tree(join(repo, ".git"));
  const run = await runLane({ repo, coder: coderScript(`${CORRECT_FIX}\n${evil}`) });
  expect(run.error).toBeNull();
  expect(run.result?.terminal.verdict).toBe("completed");
  expect(git(repo, "rev-parse", "main")).toBe(main);
  expect(gitDirChanges(before, tree(join(repo, ".git")))).toEqual([]);
  // devflow's commit is on the user's task branch, on top of main, holding the fix.
  expect(git(repo, "rev-parse", `devflow/${TASK_ID}^`)).toBe(main);
  expect(git(repo, "show", `devflow/${TASK_ID}:src/csv-import.js`)).toContain("row.email.trim()");
  return run;
}

const GIT_PRELUDE = `
import { execFileSync as run } from "node:child_process";
import { appendFileSync, mkdirSync, writeFileSync as write } from "node:fs";
import { dirname, resolve } from "node:path";
const g = (...args) => run("git", args, { encoding: "utf8" }).trim();
const tryGit = (...args) => { try { g(...args); return "ok"; } catch { return "failed"; } };
`;

describe("adversarial: the coder's checkout is a repository of its own (ADR 0025)", () => {
  it("a coder that moves branches, plants hooks, edits config and info/exclude through its checkout's git leaves the user's .git byte-identical", async () => {
    const run = await runConfined(`${GIT_PRELUDE}
      const evil = g("-c", "user.name=e", "-c", "user.email=e@e", "commit-tree", "HEAD^{tree}", "-p", "HEAD", "-m", "evil");
      g("update-ref", "refs/heads/main", evil);
      g("update-ref", "refs/heads/devflow/other", evil);
      g("tag", "-f", "evil-tag", evil);
      const hooks = resolve(g("rev-parse", "--git-path", "hooks"));
      mkdirSync(hooks, { recursive: true });
      write(resolve(hooks, "post-checkout"), "#!/bin/sh\\necho pwned\\n", { mode: 0o755 });
      write(resolve(hooks, "pre-commit"), "#!/bin/sh\\necho pwned\\n", { mode: 0o755 });
      g("config", "--local", "core.pager", "cat; echo pwned");
      g("config", "--local", "core.hooksPath", hooks);
      const exclude = resolve(g("rev-parse", "--git-path", "info/exclude"));
      mkdirSync(dirname(exclude), { recursive: true });
      appendFileSync(exclude, "\\nsecret-payload.js\\n");
      // Pointing the checkout at the user's objects/refs by git's worktree bookkeeping is gone too.
      console.log("common dir:", g("rev-parse", "--git-common-dir"));
    `);
    // Those commands did land, in the coder's own repository.
    const checkout = join(run.repo, ".devflow", "worktrees", TASK_ID);
    expect(git(checkout, "config", "--local", "core.pager")).toBe("cat; echo pwned");
    expect(git(checkout, "rev-parse", "main")).not.toBe(git(run.repo, "rev-parse", "main"));
  }, 180_000);

  it("a coder that git pushes or fetches through its checkout's origin finds no remote: the user's main and refs are untouched", async () => {
    const seen = join(tempDir("devflow-push-"), "seen.json");
    await runConfined(`${GIT_PRELUDE}
      const evil = g("-c", "user.name=e", "-c", "user.email=e@e", "commit-tree", "HEAD^{tree}", "-p", "HEAD", "-m", "evil");
      const remotes = g("remote");
      const push = tryGit("push", "--force", "origin", evil + ":refs/heads/main");
      const pushOther = tryGit("push", "origin", evil + ":refs/heads/pushed-by-coder");
      const pushTask = tryGit("push", "--force", "origin", evil + ":refs/heads/devflow/${TASK_ID}");
      const updateRemoteRef = tryGit("update-ref", "refs/remotes/origin/main", evil);
      write(${JSON.stringify(seen)}, JSON.stringify({ remotes, push, pushOther, pushTask, updateRemoteRef }));
    `);
    const observed = JSON.parse(readFileSync(seen, "utf8"));
    // No origin (ADR 0025: the checkout is made without a remote), so every push fails; a
    // remote-tracking ref the coder writes is a ref of its own repository only.
    expect(observed).toEqual({
      remotes: "",
      push: "failed",
      pushOther: "failed",
      pushTask: "failed",
      updateRemoteRef: "ok",
    });
  }, 180_000);
});

// Keep the helper honest: it does report a change outside the allowlist.
describe("gitDirChanges", () => {
  it("names a changed config and an added hook, allows the task ref and a new pack", () => {
    const dir = tempDir("devflow-gitdir-");
    writeFileSync(join(dir, "config"), "a");
    const before = tree(dir);
    writeFileSync(join(dir, "config"), "b");
    writeFileSync(join(dir, "post-checkout"), "x");
    const after = tree(dir);
    after.set(`refs/heads/devflow/${TASK_ID}`, "x");
    after.set("objects/pack/pack-0123abcd.pack", "x");
    expect(gitDirChanges(before, after)).toEqual(["config changed", "post-checkout added"]);
  });
});

describe("adversarial: the user's task branch is devflow's (ADR 0025)", () => {
  // By path: prevented outright where the mount namespace works (the user's .git is read-only);
  // this pins the gate's check that runs everywhere (the fallback).
  withMountNamespaceOff();
  it("a coder that moves the user's refs/heads/devflow/<id> by path does not complete", async () => {
    const repo = createFixtureRepo("csv-import");
    const run = await runLane({
      repo,
      coder: coderScript(`${CORRECT_FIX}\n${GIT_PRELUDE}
        const userGit = resolve(process.env.DEVFLOW_WORKTREE, "..", "..", "..", ".git");
        // An orphan twin of the base, written into the user's repository by path, and its task branch moved there.
        const twin = run("git", ["--git-dir", userGit, "-c", "user.name=e", "-c", "user.email=e@e", "commit-tree", "HEAD^{tree}", "-m", "orphan"], { encoding: "utf8" }).trim();
        g("--git-dir", userGit, "update-ref", "refs/heads/devflow/${TASK_ID}", twin);
      `),
      lane: { maxJudgeAttempts: 1 },
    });
    expect(run.error).toBeNull();
    expect(run.result?.terminal.verdict).toBe("blocked");
    expect(run.result?.terminal.reason).toMatch(/tamper: .*refs\/heads\/devflow\/trim-emails in .* moved to/);
    expect(git(repo, "log", "--format=%s", `devflow/${TASK_ID}`)).not.toMatch(/^devflow\(/m);
  }, 180_000);
});
