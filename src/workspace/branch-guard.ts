import { resolve } from "node:path";
import { DevflowError } from "../errors/index.js";
import { gitSucceeds, runGit } from "./git.js";
import { isObjectId } from "./object-id.js";
import { taskBranch } from "./task-branch.js";

/** Where the task branch stands now: what HEAD points at and the commit of `refs/heads/devflow/<id>`. */
export interface TaskBranchState {
  /** Full ref HEAD points at, or null on a detached HEAD. */
  headRef: string | null;
  /** The commit of `refs/heads/devflow/<task_id>`, or null when the ref is gone. */
  sha: string | null;
}

/**
 * One git process in the common case (issue 11: the gate asked `symbolic-ref` and `rev-parse`
 * separately on every attempt): `for-each-ref` on the exact task ref says whether HEAD resolves to
 * it (`%(HEAD)`) and which commit it names. Only that answer is trusted: HEAD on the ref and the ref
 * naming a commit directly. Anything else (HEAD elsewhere or detached, the ref gone, a tag, a
 * symbolic ref) is asked the two-process way, which also names where HEAD points for the finding.
 */
export async function taskBranchState(worktree: string, taskId: string): Promise<TaskBranchState> {
  const ref = `refs/heads/${taskBranch(taskId)}`;
  const listed = await runGit(worktree, [
    "for-each-ref",
    "--format=%(HEAD)%00%(objecttype)%00%(objectname)%00%(symref)%00%(refname)",
    ref,
  ]).catch(() => "");
  for (const line of listed.split("\n")) {
    const [head, type, sha, symref, name] = line.split("\0");
    if (name === ref && head === "*" && type === "commit" && symref === "" && isObjectId(sha ?? ""))
      return { headRef: ref, sha: sha ?? null };
  }
  const headRef = (await runGit(worktree, ["symbolic-ref", "--quiet", "HEAD"]).catch(() => "")).trim();
  return { headRef: headRef === "" ? null : headRef, sha: await taskBranchHead(worktree, taskId) };
}

/**
 * The commit of `refs/heads/devflow/<task_id>` (null when the ref is gone): `taskBranchState().sha`
 * in one git process instead of two, for callers that do not need where HEAD points (the code
 * node records the coder's head; the gate checks HEAD itself). Issue 11: one process less per attempt.
 */
export async function taskBranchHead(worktree: string, taskId: string): Promise<string | null> {
  const ref = `refs/heads/${taskBranch(taskId)}`;
  const sha = (
    await runGit(worktree, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]).catch(() => "")
  ).trim();
  return sha === "" ? null : sha;
}

/** Where the task branch stands after a coder run, and the commits on it that `since` lacks. */
export interface TaskBranchRun {
  /** The commit of `refs/heads/devflow/<task_id>` (as `taskBranchHead`), or null when the ref is gone. */
  head: string | null;
  /** Commits reachable from `head` but not from `since`, parents first; [] when git knows no `since`. */
  commits: string[];
}

/**
 * `taskBranchHead` and the commits on the task branch that `since` lacks (the code node passes the
 * base), read once after the coder is dead (issue 11: the code node asked `rev-parse HEAD` before
 * the run, then the ref and `log <before>..HEAD` after it, three git processes per attempt). One
 * `git log <ref> --not <since>^@` lists the commits of the ref that the parents of `since` lack
 * (`since` itself included when the ref still descends from it), each with the decorations of
 * exactly `<ref>`: the decorated commit is where the ref resolves, the rest but `since` are the new
 * commits. When the ref's commit is not in that list (the ref gone, rewound behind `since`, not a
 * commit, or `since` unknown to git) the ref and the commits are asked separately, as before.
 */
export async function taskBranchRun(worktree: string, taskId: string, since: string): Promise<TaskBranchRun> {
  const ref = `refs/heads/${taskBranch(taskId)}`;
  if (isObjectId(since)) {
    const listed = await runGit(worktree, [
      "log",
      "--topo-order",
      "--reverse",
      "--format=%H%x00%D%x1e",
      "--decorate=full",
      `--decorate-refs=${ref}`,
      ref,
      "--not",
      `${since}^@`,
      "--",
    ]).catch(() => null);
    if (listed !== null) {
      let head: string | null = null;
      const commits: string[] = [];
      const records = listed.split("\x1e").map((record) => record.trim().split("\0"));
      for (const [sha = "", names = ""] of records.filter(([sha]) => sha !== "")) {
        if (!isObjectId(sha)) {
          head = null; // not the answer asked for: ask the ref alone below
          break;
        }
        // Ref names cannot contain spaces (git check-ref-format), so ", " only separates names.
        if (names.split(", ").some((name) => name.replace(/^HEAD -> /, "") === ref)) head = sha;
        if (sha !== since) commits.push(sha);
      }
      if (head !== null) return { head, commits };
    }
  }
  const head = await taskBranchHead(worktree, taskId);
  // No commit to count from (an empty `since` would make `..<head>` mean `HEAD..<head>`): none claimed.
  if (head === null || !isObjectId(since)) return { head, commits: [] };
  const commits = await runGit(worktree, ["rev-list", "--topo-order", "--reverse", `${since}..${head}`, "--"])
    .then((out) => out.split("\n").filter((sha) => sha !== ""))
    .catch(() => []); // `since` unknown to git: nothing to count the coder's commits from
  return { head, commits };
}

/** True when `ancestor` is `descendant` or one of its ancestors. */
export async function isAncestor(worktree: string, ancestor: string, descendant: string): Promise<boolean> {
  if (ancestor.startsWith("-") || descendant.startsWith("-")) return false;
  return gitSucceeds(worktree, ["merge-base", "--is-ancestor", ancestor, descendant]);
}

/**
 * Branch integrity (ADR 0018): the only branch accepted for a task is `refs/heads/devflow/<task_id>`,
 * HEAD must point at it, it must stand at `expected` (the commit devflow recorded after the coder
 * ran), and `since` (the commit devflow accepted before that run) must be an ancestor of it, so the
 * coder only added commits on top. Returns one finding per broken condition; empty when intact.
 */
export async function taskBranchFindings(
  worktree: string,
  taskId: string,
  expected: { head: string; since: string },
): Promise<string[]> {
  const ref = `refs/heads/${taskBranch(taskId)}`;
  const now = await taskBranchState(worktree, taskId);
  const findings: string[] = [];
  if (now.headRef !== ref) {
    findings.push(`HEAD of the task checkout points at ${now.headRef ?? "a detached commit"}, not ${ref}`);
  }
  if (now.sha === null) {
    findings.push(`${ref} is gone`);
  } else if (now.sha !== expected.head) {
    findings.push(
      `${ref} moved to ${now.sha.slice(0, 12)} after devflow recorded ${expected.head.slice(0, 12)}`,
    );
  }
  // A commit is its own ancestor: when devflow accepted no new commit (`since` is `head`) and the
  // ref resolved to exactly that commit, `merge-base --is-ancestor` can only succeed (issue 11: one
  // git process less per attempt). Otherwise git is asked, as before.
  const unchanged = expected.since === expected.head && now.sha === expected.head;
  if (!unchanged && !(await isAncestor(worktree, expected.since, expected.head))) {
    findings.push(
      `${ref} was rewritten: ${expected.head.slice(0, 12)} does not descend from ${expected.since.slice(0, 12)}, the commit devflow accepted before the coder ran`,
    );
  }
  return findings;
}

/** `git update-ref <ref> <new> <old>`: moves the ref only if it still points at `old`. */
export async function compareAndSwapRef(
  worktree: string,
  ref: string,
  next: string,
  old: string,
): Promise<void> {
  try {
    await runGit(worktree, ["update-ref", "-m", "devflow: commit", ref, next, old]);
  } catch (error) {
    throw new DevflowError(
      "COMMIT_REFUSED",
      `refusing to move ${ref}: it no longer points at ${old.slice(0, 12)}, the commit devflow verified on (${error instanceof Error ? error.message : String(error)})`,
    );
  }
}

/**
 * The task branch in the user's repository (ADR 0025): only devflow moves it, so it must stand
 * exactly where devflow left it (`expected`: the base, or devflow's own previous commit). The coder
 * cannot reach it through git from its own checkout; a change is a tamper finding all the same.
 */
export async function userTaskBranchFindings(
  repoRoot: string,
  taskId: string,
  expected: string,
): Promise<string[]> {
  const ref = `refs/heads/${taskBranch(taskId)}`;
  const sha = (
    await runGit(repoRoot, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]).catch(() => "")
  ).trim();
  const key = refKey(repoRoot, ref);
  foundAtExpected.delete(key);
  if (sha === "") return [`${ref} is gone from ${repoRoot}`];
  if (sha !== expected)
    return [
      `${ref} in ${repoRoot} moved to ${sha.slice(0, 12)}; devflow left it at ${expected.slice(0, 12)}`,
    ];
  foundAtExpected.set(key, expected);
  return [];
}

/**
 * Where `userTaskBranchFindings` last found a task ref intact (at the commit devflow left it), in
 * this process, until the next `commitOnTaskBranch` of that ref takes it (issue 11). Only devflow's
 * commit moves the ref, and it takes this first, so while the entry exists no commit of devflow's
 * can be on the ref: the commit then need not ask whether a crashed earlier attempt already made it
 * (`sameCommitOnRef`, one git process). The compare-and-swap still refuses a ref moved meanwhile.
 * A resumed process starts without it and asks git as before.
 */
const foundAtExpected = new Map<string, string>();

const refKey = (repoRoot: string, ref: string): string => `${resolve(repoRoot)}\0${ref}`;

/** The commit `userTaskBranchFindings` last found `ref` intact at in this process (once), or null. */
export function takeRefFoundIntact(repoRoot: string, ref: string): string | null {
  const key = refKey(repoRoot, ref);
  const found = foundAtExpected.get(key) ?? null;
  foundAtExpected.delete(key);
  return found;
}
