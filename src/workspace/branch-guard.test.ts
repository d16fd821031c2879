import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { git, makeRepo, removeDir, writeFiles } from "../../test/support/test-repo.js";
import {
  compareAndSwapRef,
  taskBranchFindings,
  taskBranchHead,
  taskBranchRun,
  taskBranchState,
  userTaskBranchFindings,
} from "./branch-guard.js";
import { commitOnTaskBranch, headCommit } from "./commits.js";
import { snapshotTree } from "./snapshot.js";
import { createTaskWorktree } from "./task-worktree.js";
import type { TaskWorkspace } from "./types.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDir(dir);
});

const TASK = "guard-test";
const REF = `refs/heads/devflow/${TASK}`;

async function taskWorktree() {
  const root = makeRepo({ "README.md": "hello\n" });
  dirs.push(root);
  return createTaskWorktree({ repoRoot: root, taskId: TASK });
}

const commitOn = (ws: TaskWorkspace, expectedHead: string, tree: string, message: string) =>
  commitOnTaskBranch({
    repoRoot: ws.repoRoot,
    worktree: ws.worktree,
    taskId: TASK,
    expectedHead,
    tree,
    message,
  });

describe("commitOnTaskBranch", () => {
  it("commits on top of the expected head and moves only refs/heads/devflow/<task_id> in the user's repository", async () => {
    const ws = await taskWorktree();
    const userMain = git(ws.repoRoot, "rev-parse", "HEAD").trim();
    writeFiles(ws.worktree, { "a.txt": "a\n" });
    const tree = await snapshotTree(ws.worktree);
    const sha = await commitOn(ws, ws.baseCommit, tree, "devflow: add a");
    expect(sha).not.toBeNull();
    expect(git(ws.repoRoot, "rev-parse", REF).trim()).toBe(sha);
    expect(git(ws.repoRoot, "rev-parse", `${sha}^`).trim()).toBe(ws.baseCommit);
    expect(git(ws.repoRoot, "rev-parse", "HEAD").trim()).toBe(userMain);
    // ADR 0025: the coder's checkout is its own repository; devflow's commit is not made there.
    expect(await headCommit(ws.worktree)).toBe(ws.baseCommit);
    expect(await commitOn(ws, sha ?? "", tree, "devflow: nothing")).toBeNull();
  });

  // The snapshot check and the parent's tree come from one `rev-parse` since issue 11 (was `cat-file
  // -e <tree>^{tree}` + `rev-parse <head>^{tree}`): a snapshot the store does not hold, or an object
  // that is no tree, must still be refused before anything is committed or moved.
  it("refuses a snapshot that is not a tree in the store: the ref does not move", async () => {
    const ws = await taskWorktree();
    writeFiles(ws.worktree, { "a.txt": "a\n" });
    await snapshotTree(ws.worktree);
    const blob = git(ws.repoRoot, "rev-parse", "HEAD:README.md").trim();
    const missing = "0123456789abcdef0123456789abcdef01234567";
    for (const tree of [missing, blob]) {
      await expect(commitOn(ws, ws.baseCommit, tree, "devflow: bad")).rejects.toMatchObject({
        code: "GIT_FAILED",
      });
      expect(git(ws.repoRoot, "rev-parse", REF).trim()).toBe(ws.baseCommit);
    }
  });

  // Regression (issue 10, ADR 0033): a crash after the compare-and-swap, before the run record, made
  // the resumed commit step's CAS fail ("the task branch changed after the gate passed"): a passing
  // task ended blocked. Fix: a retry finds its own commit on the ref and returns it.
  it("a retry after a crash returns the commit it already made; another commit on the ref is still refused", async () => {
    const ws = await taskWorktree();
    writeFiles(ws.worktree, { "a.txt": "a\n" });
    const tree = await snapshotTree(ws.worktree);
    const sha = await commitOn(ws, ws.baseCommit, tree, "devflow: add a");
    expect(await commitOn(ws, ws.baseCommit, tree, "devflow: add a")).toBe(sha);
    expect(git(ws.repoRoot, "rev-list", "--count", `${ws.baseCommit}..${REF}`).trim()).toBe("1");
    // Not the same commit (another message): the ref moved behind devflow's back.
    await expect(commitOn(ws, ws.baseCommit, tree, "devflow: other")).rejects.toThrow();
  });

  it("commits exactly the given (verified) tree, never what the worktree holds later", async () => {
    const ws = await taskWorktree();
    writeFiles(ws.worktree, { "a.txt": "verified\n" });
    const verified = await snapshotTree(ws.worktree);
    writeFiles(ws.worktree, { "a.txt": "changed after verification\n", "evil.txt": "x\n" });
    const sha = await commitOn(ws, ws.baseCommit, verified, "devflow: add a");
    expect(git(ws.repoRoot, "rev-parse", `${sha}^{tree}`).trim()).toBe(verified);
    expect(git(ws.repoRoot, "show", `${sha}:a.txt`)).toBe("verified\n");
    expect(git(ws.repoRoot, "ls-tree", "--name-only", sha ?? "")).not.toContain("evil.txt");
  });

  it("refuses when the user's task branch moved away from the expected head (compare-and-swap)", async () => {
    const ws = await taskWorktree();
    git(ws.repoRoot, "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-q", "--allow-empty", "-m", "x");
    const moved = git(ws.repoRoot, "rev-parse", "HEAD").trim();
    git(ws.repoRoot, "update-ref", REF, moved);
    writeFiles(ws.worktree, { "a.txt": "a\n" });
    await expect(
      commitOn(ws, ws.baseCommit, await snapshotTree(ws.worktree), "devflow: fix"),
    ).rejects.toMatchObject({
      code: "COMMIT_REFUSED",
    });
    expect(git(ws.repoRoot, "rev-parse", REF).trim()).toBe(moved);
  });

  /*
   * issue 11 (ADR 0050 session 25): the completion commit asked `rev-parse --verify <ref>` (is a
   * crashed earlier commit of ours already on it?) right after the gate had found the ref intact.
   * Fix: the gate's reading counts for the next commit of that ref, once. Pins that the commit
   * after the gate's reading skips that question, that a retry of the commit in the same process
   * (the reading used up) still finds the commit it already made, and that a reading which found
   * the ref moved counts for nothing.
   */
  it("after the gate found the ref intact, commits without asking again; a retry still finds its commit", async () => {
    const unread = await taskWorktree();
    writeFiles(unread.worktree, { "a.txt": "a\n" });
    const unreadTree = await snapshotTree(unread.worktree);
    const asked = await countingGit(() => commitOn(unread, unread.baseCommit, unreadTree, "devflow: add a"));
    const ws = await taskWorktree();
    writeFiles(ws.worktree, { "a.txt": "a\n" });
    const tree = await snapshotTree(ws.worktree);
    expect(await userTaskBranchFindings(ws.repoRoot, TASK, ws.baseCommit)).toEqual([]);
    const { result: sha, calls } = await countingGit(() =>
      commitOn(ws, ws.baseCommit, tree, "devflow: add a"),
    );
    // One `rev-parse` less than the same commit without the gate's reading; nothing else differs.
    const revParses = (list: string[]) => list.filter((c) => c === "rev-parse").length;
    expect(revParses(calls)).toBe(revParses(asked.calls) - 1);
    expect(calls.filter((c) => c !== "rev-parse")).toEqual(asked.calls.filter((c) => c !== "rev-parse"));
    expect(git(ws.repoRoot, "rev-parse", REF).trim()).toBe(sha);
    expect(await commitOn(ws, ws.baseCommit, tree, "devflow: add a")).toBe(sha);
    // A later reading that found the ref moved cancels an earlier one: the commit asks git again.
    git(ws.repoRoot, "update-ref", REF, ws.baseCommit);
    expect(await userTaskBranchFindings(ws.repoRoot, TASK, ws.baseCommit)).toEqual([]);
    git(ws.repoRoot, "update-ref", REF, sha ?? "");
    expect(await userTaskBranchFindings(ws.repoRoot, TASK, ws.baseCommit)).toHaveLength(1);
    expect(await commitOn(ws, ws.baseCommit, tree, "devflow: add a")).toBe(sha);
  });

  // The completion commit no longer asks `cat-file -e <sha>^{commit}` in the user's repository
  // after shipping the pack (issue 11, ADR 0050 session 25): the compare-and-swap is what keeps the
  // ref off a commit that repository does not hold (git's update-ref refuses a missing object and
  // a non-commit on a branch). Pinned here, since the commit relies on it.
  it("never moves the task ref to a commit the user's repository lacks, nor to a non-commit", async () => {
    const ws = await taskWorktree();
    const elsewhere = makeRepo({ "other.txt": "not in the user's repository\n" });
    dirs.push(elsewhere);
    const foreign = git(elsewhere, "rev-parse", "HEAD").trim();
    const tree = git(ws.repoRoot, "rev-parse", "HEAD^{tree}").trim();
    for (const next of [foreign, tree])
      await expect(compareAndSwapRef(ws.repoRoot, REF, next, ws.baseCommit)).rejects.toMatchObject({
        code: "COMMIT_REFUSED",
      });
    expect(git(ws.repoRoot, "rev-parse", REF).trim()).toBe(ws.baseCommit);
  });

  it("commits on refs/heads/devflow/<task_id> only, whatever branch the coder's checkout is on", async () => {
    // Was: refused when the worktree's HEAD was on another devflow/* branch. The commit no longer
    // runs in the coder's checkout (ADR 0025), so its HEAD cannot choose the branch; the gate's
    // taskBranchFindings still reports the switch as tampering (test below).
    const ws = await taskWorktree();
    git(ws.worktree, "checkout", "-qb", "devflow/other");
    writeFiles(ws.worktree, { "a.txt": "a\n" });
    const sha = await commitOn(ws, ws.baseCommit, await snapshotTree(ws.worktree), "devflow: fix");
    expect(git(ws.repoRoot, "rev-parse", REF).trim()).toBe(sha);
    expect(git(ws.repoRoot, "for-each-ref", "--format=%(refname)", "refs/heads/devflow/")).toBe(`${REF}\n`);
    expect(
      await taskBranchFindings(ws.worktree, TASK, { head: ws.baseCommit, since: ws.baseCommit }),
    ).toEqual([`HEAD of the task checkout points at refs/heads/devflow/other, not ${REF}`]);
  });
});

describe("taskBranchFindings", () => {
  it("is empty for an intact branch with commits added on top", async () => {
    const ws = await taskWorktree();
    git(ws.worktree, "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qm", "on top", "--allow-empty");
    const head = await headCommit(ws.worktree);
    expect(await taskBranchFindings(ws.worktree, TASK, { head, since: ws.baseCommit })).toEqual([]);
  });

  it("reports a rewritten history, a moved ref and a switched branch", async () => {
    const ws = await taskWorktree();
    git(
      ws.worktree,
      "-c",
      "user.name=x",
      "-c",
      "user.email=x@x",
      "commit",
      "-q",
      "--amend",
      "-m",
      "rewritten",
    );
    const rewritten = await headCommit(ws.worktree);
    const findings = await taskBranchFindings(ws.worktree, TASK, { head: rewritten, since: ws.baseCommit });
    expect(findings).toEqual([expect.stringMatching(/was rewritten/)]);

    const moved = await taskBranchFindings(ws.worktree, TASK, { head: ws.baseCommit, since: ws.baseCommit });
    expect(moved).toEqual([expect.stringMatching(/moved to/)]);

    git(ws.worktree, "checkout", "-qb", "devflow/other");
    const switched = await taskBranchFindings(ws.worktree, TASK, { head: rewritten, since: ws.baseCommit });
    expect(switched).toContainEqual(expect.stringMatching(/HEAD .* points at refs\/heads\/devflow\/other/));
  });
});

/** Runs `body` with a `git` on PATH that logs its subcommand and runs the real git. */
async function countingGit<T>(body: () => Promise<T>): Promise<{ result: T; calls: string[] }> {
  const bin = mkdtempSync(join(tmpdir(), "devflow-counting-git-"));
  dirs.push(bin);
  const log = join(bin, "calls.log");
  const real = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
  writeFileSync(
    join(bin, "git"),
    `#!/bin/sh\nfor a in "$@"; do case "$a" in -c) skip=1;; *) if [ -z "$skip" ]; then case "$a" in -*) ;; *) echo "$a" >> ${JSON.stringify(log)}; break;; esac; fi; skip=;; esac; done\nexec ${JSON.stringify(real)} "$@"\n`,
    { mode: 0o755 },
  );
  const path = process.env.PATH;
  process.env.PATH = `${bin}:${path ?? ""}`;
  try {
    const result = await body();
    const calls = existsSync(log) ? readFileSync(log, "utf8").trim().split("\n").filter(Boolean) : [];
    return { result, calls };
  } finally {
    process.env.PATH = path;
  }
}

/**
 * issue 11 (per-attempt cost): the gate asked `git merge-base --is-ancestor X X` on every attempt in
 * which the coder made no commit, and the code node started two git processes to read only the task
 * ref's commit. Fix: a commit is its own ancestor, so that question is answered without git when the
 * ref resolved to exactly that commit; the code node reads the ref alone (`taskBranchHead`). These
 * pin the same findings as before on the inputs that could tell the difference, and the process count.
 */
describe("taskBranchFindings without a process per obvious answer", () => {
  it("answers an intact branch without new commits with one git process and no finding", async () => {
    const ws = await taskWorktree();
    const { result, calls } = await countingGit(() =>
      taskBranchFindings(ws.worktree, TASK, { head: ws.baseCommit, since: ws.baseCommit }),
    );
    expect(result).toEqual([]);
    expect(calls).toEqual(["for-each-ref"]);
  });

  /**
   * issue 11 (per-attempt cost): taskBranchState asked `symbolic-ref HEAD` and `rev-parse <ref>`
   * in two git processes on every attempt. Fix: one `for-each-ref` on the exact ref answers the
   * intact case; every other case falls back to the two questions. Pinned: the state is exactly
   * what the two questions say, on each case the one-process answer could get wrong.
   */
  it("taskBranchState in one process matches the two-process answer on every branch shape", async () => {
    const ws = await taskWorktree();
    const twoProcess = () => ({
      headRef: (() => {
        try {
          return git(ws.worktree, "symbolic-ref", "--quiet", "HEAD").trim();
        } catch {
          return null;
        }
      })(),
      sha: (() => {
        try {
          return git(ws.worktree, "rev-parse", "--verify", "--quiet", `${REF}^{commit}`).trim();
        } catch {
          return null;
        }
      })(),
    });
    const same = async (label: string) =>
      expect({ label, state: await taskBranchState(ws.worktree, TASK) }).toEqual({
        label,
        state: twoProcess(),
      });

    await same("intact");
    git(ws.worktree, "checkout", "-q", "--detach");
    await same("detached HEAD");
    git(ws.worktree, "checkout", "-qb", "devflow/other");
    await same("HEAD on another branch");
    git(ws.worktree, "checkout", "-q", "devflow/guard-test");
    // git refuses to point a branch at a non-commit; a coder can write the ref file itself.
    const commonDir = resolve(ws.worktree, git(ws.worktree, "rev-parse", "--git-common-dir").trim());
    const writeRef = (target: string) => writeFileSync(join(commonDir, REF), `${target}\n`);
    git(ws.worktree, "-c", "user.name=t", "-c", "user.email=t@t", "tag", "-a", "-m", "t", "t1");
    writeRef(git(ws.worktree, "rev-parse", "t1").trim());
    await same("the ref names an annotated tag of a commit");
    writeRef(git(ws.worktree, "rev-parse", "HEAD^{tree}").trim());
    await same("the ref names a tree");
    git(ws.worktree, "update-ref", "-d", REF);
    await same("the ref is gone");
  });

  it("still asks git, and reports as before, whenever the shortcut's premise does not hold", async () => {
    const ws = await taskWorktree();
    // The ref is gone: since === head, but nothing vouches that head is a commit here.
    git(ws.worktree, "update-ref", "-d", REF);
    const gone = await countingGit(() =>
      taskBranchFindings(ws.worktree, TASK, { head: ws.baseCommit, since: ws.baseCommit }),
    );
    expect(gone.result).toEqual([`${REF} is gone`]);
    expect(gone.calls).toContain("merge-base");
    // A recorded head that is no commit at all: moved, and not a descendant (git says so).
    git(ws.worktree, "update-ref", REF, ws.baseCommit);
    const bogus = "0".repeat(40);
    const notACommit = await countingGit(() =>
      taskBranchFindings(ws.worktree, TASK, { head: bogus, since: bogus }),
    );
    expect(notACommit.result).toEqual([
      expect.stringMatching(/moved to/),
      expect.stringMatching(/was rewritten/),
    ]);
    // The ref is itself a symbolic ref to another branch at the same commit: reported as a switched
    // HEAD (git resolves HEAD through the chain), exactly as before the shortcut; merge-base unneeded.
    git(ws.worktree, "update-ref", "refs/heads/devflow/alias", ws.baseCommit);
    git(ws.worktree, "symbolic-ref", REF, "refs/heads/devflow/alias");
    const { result: viaAlias } = await countingGit(() =>
      taskBranchFindings(ws.worktree, TASK, { head: ws.baseCommit, since: ws.baseCommit }),
    );
    expect(viaAlias).toEqual([`HEAD of the task checkout points at refs/heads/devflow/alias, not ${REF}`]);
    expect(await taskBranchHead(ws.worktree, TASK)).toBe(ws.baseCommit);
  });

  it("taskBranchHead is taskBranchState's sha in one git process", async () => {
    const ws = await taskWorktree();
    const { result, calls } = await countingGit(() => taskBranchHead(ws.worktree, TASK));
    expect(result).toBe((await taskBranchState(ws.worktree, TASK)).sha);
    expect(calls).toEqual(["rev-parse"]);
    git(ws.worktree, "update-ref", "-d", REF);
    expect(await taskBranchHead(ws.worktree, TASK)).toBeNull();
    expect((await taskBranchState(ws.worktree, TASK)).sha).toBeNull();
  });
});

/**
 * issue 11 (per-attempt cost): the code node started three git processes per attempt around the
 * coder run: `rev-parse HEAD` before it, then `rev-parse <ref>` and `log <before>..HEAD` after it.
 * Fix: the head before the run is the one devflow recorded itself, and one `git log` of the ref and
 * that head, decorated with exactly the task ref, answers both questions after the run
 * (`taskBranchRun`). Pinned: on every branch shape a coder can leave, the head is exactly
 * `taskBranchHead`'s answer (the gate compares the ref with it) and the commits exactly
 * `rev-list <since>..<ref>`, with one git process whenever the ref's commit is in that listing.
 */
describe("taskBranchRun: the task ref and the coder's commits in one git process", () => {
  const revList = (ws: TaskWorkspace, since: string): string[] => {
    try {
      return git(ws.worktree, "rev-list", "--topo-order", "--reverse", `${since}..${REF}`, "--")
        .trim()
        .split("\n")
        .filter(Boolean);
    } catch {
      return [];
    }
  };
  const commit = (ws: TaskWorkspace, message: string) =>
    git(
      ws.worktree,
      "-c",
      "user.name=t",
      "-c",
      "user.email=t@t",
      "commit",
      "-q",
      "--allow-empty",
      "-m",
      message,
    );
  /** `calls`: the git processes expected, when the label's shape decides them. */
  const matches = async (ws: TaskWorkspace, label: string, since: string, calls?: string[]) => {
    const { result, calls: made } = await countingGit(() => taskBranchRun(ws.worktree, TASK, since));
    expect({ label, result }).toEqual({
      label,
      result: { head: await taskBranchHead(ws.worktree, TASK), commits: revList(ws, since) },
    });
    if (calls) expect({ label, made }).toEqual({ label, made: calls });
  };
  const ONE = ["log"];
  const ASKED_AGAIN = ["log", "rev-parse", "rev-list"];
  const GONE = ["log", "rev-parse"];

  it("matches taskBranchHead and rev-list on every branch shape, in one process when the ref is in the listing", async () => {
    const ws = await taskWorktree();
    const base = ws.baseCommit;
    await matches(ws, "intact, no commits (the base is a root commit)", base, ONE);
    commit(ws, "one");
    commit(ws, "two");
    const two = git(ws.worktree, "rev-parse", "HEAD").trim();
    await matches(ws, "two commits on top", base, ONE);
    await matches(ws, "since the previous run's head", two, ONE);
    // Look-alike branches of the coder's own: only the exact ref names the head.
    git(ws.worktree, "branch", `devflow/${TASK}-2`, base);
    git(ws.worktree, "update-ref", "refs/tags/devflow/guard-test", base);
    commit(ws, "three");
    await matches(ws, "look-alike refs at other commits", two, ONE);
    git(ws.worktree, "checkout", "-q", "--detach");
    commit(ws, "detached");
    await matches(ws, "HEAD moved off the ref (the gate reports it)", two, ONE);
    git(ws.worktree, "checkout", "-q", `devflow/${TASK}`);
    git(ws.worktree, "reset", "-q", "--hard", base);
    git(ws.worktree, "branch", "-f", `devflow/${TASK}-2`, two);
    await matches(ws, "rewound behind since, a look-alike branch at since", two, ASKED_AGAIN);
    const orphan = git(ws.worktree, "commit-tree", `${base}^{tree}`, "-m", "orphan").trim();
    git(ws.worktree, "update-ref", REF, orphan);
    await matches(ws, "an orphan commit", two, ONE);
    const commonDir = resolve(ws.worktree, git(ws.worktree, "rev-parse", "--git-common-dir").trim());
    git(ws.worktree, "-c", "user.name=t", "-c", "user.email=t@t", "tag", "-a", "-m", "t", "t1", two);
    writeFileSync(join(commonDir, REF), `${git(ws.worktree, "rev-parse", "t1").trim()}\n`);
    await matches(ws, "the ref names an annotated tag", base, ASKED_AGAIN);
    writeFileSync(join(commonDir, REF), `${git(ws.worktree, "rev-parse", `${two}^{tree}`).trim()}\n`);
    await matches(ws, "the ref names a tree", base, GONE);
    git(ws.worktree, "update-ref", REF, two);
    git(ws.worktree, "update-ref", "refs/heads/devflow/alias", base);
    git(ws.worktree, "symbolic-ref", REF, "refs/heads/devflow/alias");
    await matches(ws, "the ref is a symbolic ref", base);
    git(ws.worktree, "symbolic-ref", "--delete", REF);
    git(ws.worktree, "update-ref", REF, two);
    git(ws.worktree, "checkout", "-q", `devflow/${TASK}`);
    git(ws.worktree, "branch", "-m", `devflow/${TASK}`, "devflow/renamed");
    await matches(ws, "the ref renamed away", base, GONE);
    await matches(ws, "the ref gone and since unknown", "0".repeat(40));
    git(ws.worktree, "branch", "-m", "devflow/renamed", `devflow/${TASK}`);
    await matches(ws, "since unknown to git", "0".repeat(40), ASKED_AGAIN);
    const { result: noSince, calls: noSinceCalls } = await countingGit(() =>
      taskBranchRun(ws.worktree, TASK, ""),
    );
    expect(noSince).toEqual({ head: await taskBranchHead(ws.worktree, TASK), commits: [] });
    expect(noSinceCalls).toEqual(["rev-parse"]);
  });
});
