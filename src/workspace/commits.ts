import { copyFileSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { DevflowError } from "../errors/index.js";

import { compareAndSwapRef, takeRefFoundIntact } from "./branch-guard.js";
import { errorText } from "./errors.js";
import { pinnedGitDir, runGit } from "./git.js";
import { isObjectId } from "./object-id.js";
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

/** What devflow commits on the task branch and where (ADR 0018, 0023, 0024, 0025). */
export interface TaskBranchCommit {
  /** The user's repository: its `refs/heads/devflow/<task_id>` is moved, nothing else. */
  repoRoot: string;
  /** The coder's checkout: its pinned snapshot store holds `tree`'s objects. */
  worktree: string;
  taskId: string;
  /** Where devflow last left the user's task branch (the base, or its own previous commit). */
  expectedHead: string;
  /** The verified snapshot. */
  tree: string;
  message: string;
  /**
   * The commit's author (config commit.author_*, ADR 0047); default devflow. The committer is
   * always devflow: it marks the commit as devflow's (and sameCommitOnRef recognises it by that).
   */
  author?: { name: string; email: string };
}

/**
 * The completion commit: commits exactly `tree` (the snapshot that was verified, never the live
 * checkout, which a process may have changed since) on top of `expectedHead` with `commit-tree`
 * in devflow's own repository, ships the objects the user's repository lacks as one pack, and moves
 * `refs/heads/devflow/<task_id>` in the user's repository only if it still points at
 * `expectedHead` (`git update-ref <ref> <new> <old>`). Nothing runs in the coder's repository: its
 * own commits are not part of the result (ADR 0025). Returns the new sha, or null when the tree
 * equals `expectedHead`'s (the ref is still checked).
 */
export async function commitOnTaskBranch(request: TaskBranchCommit): Promise<string | null> {
  const { repoRoot, worktree, taskId, expectedHead, tree, message } = request;
  const author = request.author ?? IDENTITY;
  const ref = `refs/heads/${taskBranch(taskId)}`;
  // Taken first, whatever happens next: the gate's reading of the ref counts for one commit only.
  const foundIntactAt = takeRefFoundIntact(repoRoot, ref);
  if (message.trim() === "")
    throw new DevflowError("COMMIT_REFUSED", "commit message is empty: pass a message describing the change");
  if (!isObjectId(expectedHead))
    throw new DevflowError(
      "BAD_REVISION",
      `invalid commit ${JSON.stringify(expectedHead)}: pass a commit sha`,
    );
  if (!isObjectId(tree))
    throw new DevflowError("BAD_REVISION", `invalid tree ${JSON.stringify(tree)}: pass a tree sha`);
  // Where the snapshot's objects are: devflow's repository pinned for the checkout (the lane,
  // ADR 0024); without one (tests, other callers), the checkout's own pinned git dir.
  const store = snapshotStoreOf(worktree);
  const source = store?.gitDir ?? pinnedGitDir(worktree);
  const own = source ? { env: { GIT_DIR: source } } : {};
  // One rev-parse for both (issue 11): the snapshot must be a tree in the store (was `cat-file -e
  // <tree>^{tree}`; rev-parse peels it the same way and fails the same way), then the parent's tree.
  const [, parentTree = ""] = (
    await runGit(repoRoot, ["rev-parse", `${tree}^{tree}`, `${expectedHead}^{tree}`], own)
  ).split("\n");
  // A retry after a crash between the compare-and-swap and the run record (ADR 0033): the ref
  // already holds devflow's commit of exactly this tree on exactly `expectedHead`; it is the result.
  // Not asked when the gate of this process has just found the ref at `expectedHead` (issue 11):
  // no commit of devflow's can be on it since (branch-guard.ts, takeRefFoundIntact).
  const done =
    foundIntactAt === expectedHead ? null : await sameCommitOnRef(repoRoot, ref, expectedHead, tree, message);
  if (done) return done;
  if (tree === parentTree) {
    await compareAndSwapRef(repoRoot, ref, expectedHead, expectedHead);
    return null;
  }
  const sha = (
    await runGit(repoRoot, ["commit-tree", tree, "-p", expectedHead, "-m", message], {
      env: { ...IDENTITY_ENV, GIT_AUTHOR_NAME: author.name, GIT_AUTHOR_EMAIL: author.email, ...own.env },
      config: COMMIT_CONFIG,
      allowHooksPathOverride: true,
    })
  ).trim();
  if (source) {
    const userObjects =
      store?.userObjects ??
      resolve(repoRoot, (await runGit(repoRoot, ["rev-parse", "--git-path", "objects"])).trim());
    await shipObjects(repoRoot, source, userObjects, sha, expectedHead);
  }
  await compareAndSwapRef(repoRoot, ref, sha, expectedHead);
  return sha;
}

/**
 * The commit `ref` points at when it is devflow's commit of `tree` with the one parent
 * `expectedHead` and this message (what `commitOnTaskBranch` made before a crash); otherwise null.
 */
async function sameCommitOnRef(
  repoRoot: string,
  ref: string,
  expectedHead: string,
  tree: string,
  message: string,
): Promise<string | null> {
  const head = (await runGit(repoRoot, ["rev-parse", "--verify", "--quiet", ref]).catch(() => "")).trim();
  if (head === "" || head === expectedHead) return null;
  const raw = await runGit(repoRoot, ["cat-file", "commit", head]).catch(() => "");
  const split = raw.indexOf("\n\n");
  if (split < 0) return null;
  const headers = raw.slice(0, split).split("\n");
  const parents = headers.filter((h) => h.startsWith("parent ")).map((h) => h.slice(7));
  const same =
    headers.includes(`tree ${tree}`) &&
    parents.length === 1 &&
    parents[0] === expectedHead &&
    headers.some((h) => h.startsWith(`committer ${IDENTITY.name} <${IDENTITY.email}>`)) &&
    raw.slice(split + 2).trimEnd() === message.trimEnd();
  return same ? head : null;
}

/**
 * The objects the commit needs and the user's repository lacks (reachable from `sha`, not from
 * `expectedHead`) are packed in devflow's repository and indexed with `index-pack --stdin
 * --strict`, before any ref there refers to them. index-pack computes every object's id from its
 * content and, strict, refuses a pack with a malformed object or one that refers to an object
 * neither the pack nor the user's repository holds. `pack-objects` never re-hashes: an object
 * swapped in devflow's store after verification (a verification run can write it; review row 2)
 * would otherwise ship under the verified object's id. Swapped, its content gets another id, the
 * verified one is missing, and the commit is refused (COMMIT_REFUSED, a tamper finding).
 * index-pack writes into a quarantine object dir in devflow's repository (the user's objects as
 * alternates): only a pack that passed is moved into the user's object dir, so a refused one
 * leaves nothing there (not even index-pack's `tmp_pack_*`).
 */
async function shipObjects(
  repoRoot: string,
  gitDir: string,
  userObjects: string,
  sha: string,
  expectedHead: string,
): Promise<void> {
  const staging = mkdtempSync(join(gitDir, "ship-"));
  const quarantine = join(staging, "objects");
  mkdirSync(join(quarantine, "pack"), { recursive: true });
  try {
    const packHash = (
      await runGit(repoRoot, ["pack-objects", "--revs", "-q", join(staging, "pack")], {
        env: { GIT_DIR: gitDir },
        input: `${sha}\n^${expectedHead}\n`,
      })
    ).trim();
    let indexed: string;
    try {
      const output = await runGit(repoRoot, ["index-pack", "--stdin", "--strict"], {
        inputFile: join(staging, `pack-${packHash}.pack`),
        env: { GIT_OBJECT_DIRECTORY: quarantine, GIT_ALTERNATE_OBJECT_DIRECTORIES: userObjects },
      });
      indexed = /^(?:pack|keep)\s+([0-9a-f]+)/m.exec(output)?.[1] ?? "";
      if (!indexed) throw new Error(`index-pack printed no pack name: ${output.trim()}`);
    } catch (error) {
      throw new DevflowError(
        "COMMIT_REFUSED",
        `the objects of the verified tree failed git's integrity check on their way into ${repoRoot} (${errorText(error).split("\n")[0]}): devflow's repository was changed after verification; nothing was committed`,
        { cause: error },
      );
    }
    // The pack before its index (git's own order: an index never names a missing pack).
    for (const ext of ["pack", "rev", "idx"]) {
      const from = join(quarantine, "pack", `pack-${indexed}.${ext}`);
      if (existsSync(from)) moveFile(from, join(userObjects, "pack", `pack-${indexed}.${ext}`));
    }
    // No `cat-file -e <sha>^{commit}` here (issue 11: one git process per run): the ref moves
    // only by `update-ref`, which refuses a commit the user's repository does not hold ("trying to
    // write ref … with nonexistent object") and a non-commit on a branch, at the moment it moves.
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** rename, or copy + remove across file systems (a URL task's clone may live elsewhere). */
function moveFile(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch {
    copyFileSync(from, to);
    rmSync(from, { force: true });
  }
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
