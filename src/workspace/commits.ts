import { DevflowError } from "../errors/index.js";

import { compareAndSwapRef } from "./branch-guard.js";
import { runGit } from "./git.js";
import { snapshotStoreOf } from "./snapshot-store.js";
import { TASK_BRANCH_PREFIX, taskBranch } from "./task-branch.js";

const IDENTITY = { name: "devflow", email: "devflow@localhost" };

/** Identity via env, which wins over any user.name/user.email config (or the lack of one). */
const IDENTITY_ENV = {
  GIT_AUTHOR_NAME: IDENTITY.name,
  GIT_AUTHOR_EMAIL: IDENTITY.email,
  GIT_COMMITTER_NAME: IDENTITY.name,
  GIT_COMMITTER_EMAIL: IDENTITY.email,
};

/**
 * The orchestrator's commit is deterministic: no signing prompt, and no hooks (a pre-commit
 * formatter or an interactive prepare-commit-msg would change or block an already verified change).
 */
const COMMIT_CONFIG = [
  `user.name=${IDENTITY.name}`,
  `user.email=${IDENTITY.email}`,
  "commit.gpgSign=false",
  "core.hooksPath=/dev/null",
];

/**
 * Stages everything in `worktree` (respecting .gitignore) and commits it as devflow. Returns the
 * new commit's sha, or null when there was nothing to commit. Refuses to commit anywhere but a
 * `devflow/` branch, so a wrong path can never put a commit on the user's own branch.
 */
export async function commitAll(worktree: string, message: string): Promise<string | null> {
  const branch = (
    await runGit(worktree, ["symbolic-ref", "--quiet", "--short", "HEAD"]).catch(() => "")
  ).trim();
  if (!branch.startsWith(TASK_BRANCH_PREFIX)) {
    const where = branch === "" ? "a detached HEAD" : `branch ${branch}`;
    throw new DevflowError(
      "COMMIT_REFUSED",
      `refusing to commit in ${worktree}: it is on ${where}, not a ${TASK_BRANCH_PREFIX}<task> branch (devflow only commits on its own branches)`,
    );
  }
  if (message.trim() === "")
    throw new DevflowError("COMMIT_REFUSED", "commit message is empty: pass a message describing the change");
  await runGit(worktree, ["add", "--all"]);
  const staged = await runGit(worktree, ["diff", "--cached", "--name-only", "-z"]);
  if (staged === "") return null;
  await runGit(worktree, ["commit", "--quiet", "--no-verify", "--message", message], {
    env: IDENTITY_ENV,
    config: COMMIT_CONFIG,
    allowHooksPathOverride: true,
  });
  return headCommit(worktree);
}

/**
 * The completion commit (ADR 0018, 0023): commits exactly `tree` (the snapshot that was verified,
 * never the live worktree, which a process may have changed since) on top of `expectedHead` with
 * `commit-tree`, and moves `refs/heads/devflow/<task_id>` to it only if the ref still points at
 * `expectedHead` (`git update-ref <ref> <new> <old>`). HEAD must point at exactly that ref, so
 * another `devflow/*` branch is never accepted. The worktree's index is then set to `tree`.
 * Returns the new sha, or null when the tree equals `expectedHead`'s (the ref is still checked).
 */
export async function commitOnTaskBranch(
  worktree: string,
  taskId: string,
  expectedHead: string,
  tree: string,
  message: string,
): Promise<string | null> {
  const ref = `refs/heads/${taskBranch(taskId)}`;
  const headRef = (await runGit(worktree, ["symbolic-ref", "--quiet", "HEAD"]).catch(() => "")).trim();
  if (headRef !== ref) {
    throw new DevflowError(
      "COMMIT_REFUSED",
      `refusing to commit in ${worktree}: HEAD points at ${headRef || "a detached commit"}, not ${ref} (the only branch devflow accepts for this task)`,
    );
  }
  if (message.trim() === "")
    throw new DevflowError("COMMIT_REFUSED", "commit message is empty: pass a message describing the change");
  if (expectedHead.startsWith("-")) throw new DevflowError("BAD_REVISION", `invalid commit ${expectedHead}`);
  if (!/^[0-9a-f]{40,64}$/.test(tree))
    throw new DevflowError("BAD_REVISION", `invalid tree ${JSON.stringify(tree)}: pass a tree sha`);
  await copySnapshotObjects(worktree, tree, expectedHead);
  await runGit(worktree, ["cat-file", "-e", `${tree}^{tree}`]);
  const parentTree = (await runGit(worktree, ["rev-parse", `${expectedHead}^{tree}`])).trim();
  if (tree === parentTree) {
    await compareAndSwapRef(worktree, ref, expectedHead, expectedHead);
    return null;
  }
  const sha = (
    await runGit(worktree, ["commit-tree", tree, "-p", expectedHead, "-m", message], {
      env: IDENTITY_ENV,
      config: COMMIT_CONFIG,
      allowHooksPathOverride: true,
    })
  ).trim();
  await compareAndSwapRef(worktree, ref, sha, expectedHead);
  // The index follows the new HEAD, so `git status` in the worktree shows what was committed.
  await runGit(worktree, ["read-tree", tree]);
  return sha;
}

/**
 * A snapshot lives in devflow's verification repository (ADR 0024); the objects the commit needs
 * and the user's repository lacks (reachable from `tree`, not from `expectedHead`) are written into
 * the user's object dir as one pack, by devflow's git, before anything there refers to them.
 */
async function copySnapshotObjects(worktree: string, tree: string, expectedHead: string): Promise<void> {
  const store = snapshotStoreOf(worktree);
  if (!store) return;
  await runGit(worktree, ["pack-objects", "--revs", "-q", `${store.userObjects}/pack/pack`], {
    env: { GIT_DIR: store.gitDir },
    input: `${tree}\n^${expectedHead}\n`,
  });
}

export interface CommitSummary {
  sha: string;
  subject: string;
}

/** Commits reachable from HEAD but not from `sha` (e.g. the coder's own commits), oldest first. */
export async function commitsSince(worktree: string, sha: string): Promise<CommitSummary[]> {
  if (sha.trim() === "" || sha.startsWith("-")) {
    throw new DevflowError("BAD_REVISION", `invalid commit ${JSON.stringify(sha)}: pass a commit sha`);
  }
  const output = await runGit(worktree, ["log", "--reverse", "--format=%H%x1f%s%x1e", `${sha}..HEAD`, "--"]);
  return output
    .split("\x1e")
    .map((record) => record.trim())
    .filter((record) => record !== "")
    .map((record) => {
      const [commit = "", subject = ""] = record.split("\x1f");
      return { sha: commit, subject };
    });
}

/** The sha HEAD points at in `worktree`. */
export async function headCommit(worktree: string): Promise<string> {
  return (await runGit(worktree, ["rev-parse", "--verify", "HEAD^{commit}"])).trim();
}
