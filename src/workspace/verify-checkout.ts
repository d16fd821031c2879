import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { dirname, join, posix, resolve } from "node:path";
import { DevflowError } from "../errors/index.js";
import {
  coderIndexRecord,
  ensureDevflowDir,
  verifyCheckoutDir,
  verifyGitDir,
  verifyIndexRecord,
} from "../home/paths.js";

import { pinGitDir, runGit } from "./git.js";
import { isObjectId } from "./object-id.js";
import { samePath } from "./paths.js";
import { pinSnapshotStore, snapshotStoreOf } from "./snapshot-store.js";
import { backdateIndex, readOwnIndex, writeIndexRecord } from "./verify-index-record.js";

/**
 * A task's verification checkout (ADR 0024): a repository of devflow's own (not a worktree of the
 * user's or the coder's), reused across attempts and reset to exactly the tree being verified.
 */
export interface VerifyCheckout {
  /** The work tree the seam, seam integrity and regression run in. */
  dir: string;
  /** Its git dir, outside the work tree; also the store every snapshot of the task is written to. */
  gitDir: string;
  /**
   * Where the hash of the index each reset writes is kept (the task's artifacts, out of a test
   * run's reach), so a later task can adopt this checkout without a full rewrite (ADR 0039).
   */
  indexRecord?: string;
}

/** What a reset did. */
export interface ResetReport {
  /** No trusted index to start from: every tracked file was written (first reset in this process). */
  rewroteAll: boolean;
}

export interface VerifyCheckoutRequest {
  repoRoot: string;
  taskId: string;
  baseCommit: string;
  /** The coder's checkout: from now on its snapshots go into this checkout's repository. */
  coderCheckout: string;
}

/**
 * devflow's config for its own repository: nothing from the user or the coder runs here. Written
 * whole (not edited) at every open and reset: the seam and regression runs can write this git dir,
 * and a filter, `core.worktree` or attributes planted there must not shape the next reset or
 * snapshot (review row 1). devflow's git reads no global or system config (git.ts gitEnv).
 */
const OWN_CONFIG = `[core]
\trepositoryformatversion = 0
\tfilemode = true
\tbare = false
\tlogallrefupdates = true
\thooksPath = /dev/null
\tfsmonitor = false
\tautocrlf = false
[gc]
\tauto = 0
`;

/** The git dir's config and `info/` (attributes, exclude, sparse-checkout) back to devflow's own. */
function restoreOwnGitFiles(gitDir: string): void {
  writeFileSync(join(gitDir, "config"), OWN_CONFIG);
  rmSync(join(gitDir, "info"), { recursive: true, force: true });
}

/**
 * Opens (creating it the first time) the task's verification checkout and pins it as the snapshot
 * store of the coder's checkout. Idempotent and cheap: called when a task starts or resumes and by
 * every node that runs something in it.
 */
export async function openVerifyCheckout(request: VerifyCheckoutRequest): Promise<VerifyCheckout> {
  const { repoRoot, taskId, baseCommit, coderCheckout } = request;
  if (!isObjectId(baseCommit))
    throw new DevflowError(
      "BAD_REVISION",
      `invalid base commit ${JSON.stringify(baseCommit)}: pass a commit sha`,
    );
  const dir = verifyCheckoutDir(repoRoot, taskId);
  const gitDir = verifyGitDir(repoRoot, taskId);
  const userObjects = await userObjectDir(repoRoot);
  if (!existsSync(join(gitDir, "HEAD")))
    await createVerifyRepo(repoRoot, dir, gitDir, userObjects, baseCommit);
  // Rewritten on every open: a test run in the checkout may have changed them.
  restoreOwnGitFiles(gitDir);
  writeFileSync(join(gitDir, "objects", "info", "alternates"), `${userObjects}\n`);
  mkdirSync(dir, { recursive: true });
  writeGitFile(dir, gitDir);
  pinGitDir(dir, gitDir);
  pinSnapshotStore(coderCheckout, {
    gitDir,
    indexFile: join(gitDir, "snapshot-index"),
    baseCommit,
    // A URL task's checkout is the clone that also holds `.devflow/`: devflow's home is never part of the change.
    exclude: samePath(coderCheckout, repoRoot) ? [":(exclude).devflow"] : [],
    userObjects,
    // A URL task's checkout is its clone, never reused by another task: nothing to record.
    ...(samePath(coderCheckout, repoRoot) ? {} : { indexRecord: coderIndexRecord(repoRoot, taskId) }),
  });
  return { dir, gitDir, indexRecord: verifyIndexRecord(repoRoot, taskId) };
}

async function createVerifyRepo(
  repoRoot: string,
  dir: string,
  gitDir: string,
  userObjects: string,
  baseCommit: string,
): Promise<void> {
  ensureDevflowDir(repoRoot);
  await rm(dir, { recursive: true, force: true });
  await rm(gitDir, { recursive: true, force: true });
  mkdirSync(dirname(dir), { recursive: true });
  await initVerifyRepo(dir, gitDir, userObjects, baseCommit);
  // The work tree is empty: its first reset has nothing to clean.
  FRESH.add(resolve(gitDir));
}

/**
 * Makes `gitDir` a new repository of devflow's own for the work tree `dir` (which may already hold
 * files: an adopted checkout, ADR 0039). `dir` must hold no `.git`.
 */
export async function initVerifyRepo(
  dir: string,
  gitDir: string,
  userObjects: string,
  baseCommit: string,
): Promise<void> {
  // No template: no sample hooks, no info/exclude; the git dir lives beside the work tree.
  await runGit(dirname(dir), ["init", "-q", "--template=", `--separate-git-dir=${gitDir}`, dir]);
  restoreOwnGitFiles(gitDir);
  mkdirSync(join(gitDir, "objects", "info"), { recursive: true });
  writeFileSync(join(gitDir, "objects", "info", "alternates"), `${userObjects}\n`);
  // HEAD at the base (detached): a test that asks git about the checkout sees the change as the diff.
  writeFileSync(join(gitDir, "HEAD"), `${baseCommit}\n`);
}

/** Verification git dirs created by this process whose work tree no reset has touched yet. */
const FRESH = new Set<string>();

/** The user's object dir per repository: asked once per process, not at every reset. */
const USER_OBJECTS = new Map<string, string>();

export async function userObjectDir(repoRoot: string): Promise<string> {
  const key = resolve(repoRoot);
  let dir = USER_OBJECTS.get(key);
  if (dir === undefined) {
    dir = resolve(repoRoot, (await runGit(repoRoot, ["rev-parse", "--git-path", "objects"])).trim());
    USER_OBJECTS.set(key, dir);
  }
  return dir;
}

/** A link devflow made in the checkout (dependencies) that a reset keeps while it still points there. */
export interface KeptLink {
  path: string;
  target: string;
}

/**
 * Makes the verification checkout hold exactly `treeish` and nothing else: `read-tree -u --reset`
 * rewrites only what differs (cheap on big repositories), `clean -ffdx` removes every untracked and
 * ignored file a previous run left. Only devflow's own dependency links survive, and only while they
 * are still the same symlink.
 *
 * What read-tree trusts is the index, and the index lives in a git dir a test run can write: a
 * `skip-worktree` or `assume-unchanged` bit, or stat data copied from a tampered file, would make it
 * keep that file. So the index read-tree starts from is devflow's own copy of the one its previous
 * reset wrote (bytes and modification time, so git's racy-entry rule still holds); without one
 * (first reset in this process, e.g. after --resume) the index is dropped and every file rewritten.
 * The stat check itself is forced to compare ctime (`core.trustctime`, `core.checkStat=default`),
 * which a process without root cannot set back: a file edited in place and given its old mtime and
 * size is still rewritten.
 */
export async function resetVerifyCheckout(
  checkout: VerifyCheckout,
  treeish: string,
  keep: readonly KeptLink[] = [],
): Promise<ResetReport> {
  if (treeish.trim() === "" || treeish.startsWith("-"))
    throw new DevflowError(
      "BAD_REVISION",
      `invalid tree ${JSON.stringify(treeish)}: pass a tree or commit sha`,
    );
  writeGitFile(checkout.dir, checkout.gitDir);
  // Config and info/ first: a filter or attributes planted there must not shape this reset.
  restoreOwnGitFiles(checkout.gitDir);
  const index = join(checkout.gitDir, "index");
  await rm(`${index}.lock`, { force: true });
  const rewroteAll = !restoreOwnIndex(index);
  await runGit(checkout.dir, ["read-tree", "-u", "--reset", treeish], { config: STAT_CHECK_CONFIG });
  const fresh = FRESH.delete(resolve(checkout.gitDir));
  if (!fresh) {
    const kept = keep.filter((link) => isSymlinkTo(join(checkout.dir, link.path), link.target));
    await runGit(checkout.dir, ["clean", "-ffdxq", ...kept.flatMap((link) => ["-e", `/${link.path}`])]);
  }
  const own = readOwnIndex(index);
  OWN_INDEX.set(index, own);
  if (checkout.indexRecord) writeIndexRecord(checkout.indexRecord, own);
  return { rewroteAll };
}

/**
 * Trusts `bytes` as the index devflow's last reset of this git dir wrote, at `mtimeMs` (an adopted
 * checkout whose index still hashes to the recorded one, ADR 0039): its next reset starts from it.
 */
export function trustIndex(gitDir: string, own: { bytes: Buffer; mtimeMs: number }): void {
  writeFileSync(join(gitDir, "index"), own.bytes);
  OWN_INDEX.set(join(gitDir, "index"), own);
}

/**
 * The stat check read-tree does on every unchanged file, whatever the git dir's config says (ADR
 * 0032): used by every reset that starts from devflow's own index (verification checkouts, and a
 * reused coder checkout, coder-checkout-reuse.ts).
 */
export const STAT_CHECK_CONFIG = [
  "core.trustctime=true",
  "core.checkStat=default",
  "core.ignoreStat=false",
  "core.sparseCheckout=false",
  "core.splitIndex=false",
];

/** The index each verification checkout's last reset wrote, as devflow read it right after. */
const OWN_INDEX = new Map<string, { bytes: Buffer; mtimeMs: number }>();

/** Puts devflow's own copy back; false when it has none (the index is dropped: a full rewrite). */
function restoreOwnIndex(index: string): boolean {
  const own = OWN_INDEX.get(index);
  if (!own) {
    rmSync(index, { recursive: true, force: true });
    return false;
  }
  let same = false;
  try {
    // A symlink put in its place is replaced, never written through.
    same = lstatSync(index).isFile() && readFileSync(index).equals(own.bytes);
  } catch {
    same = false;
  }
  if (!same) {
    rmSync(index, { recursive: true, force: true });
    writeFileSync(index, own.bytes);
  }
  backdateIndex(index, own.mtimeMs);
  return true;
}

/** The checkout's `.git` link, for git run by the tests (devflow's own git never reads it: GIT_DIR is pinned). */
function writeGitFile(dir: string, gitDir: string): void {
  rmSync(join(dir, ".git"), { recursive: true, force: true });
  writeFileSync(join(dir, ".git"), `gitdir: ${gitDir}\n`);
}

function isSymlinkTo(path: string, target: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink() && readlinkSync(path) === target;
  } catch {
    return false;
  }
}

/**
 * Symlinks among `paths` in `tree` that leave the repository (absolute, `..` above the top, or into
 * `.git`), as `path -> target`. Read from the snapshot store pinned for `worktree`. Each link is
 * resolved the way the kernel resolves it in a checkout of exactly `tree` (review row 8): a
 * component that is itself a symlink of the tree is followed before any `..` after it, so a chain
 * of links that each look inside (`a/b/c/d/up -> ../../../../x`, `clean.txt ->
 * a/b/c/d/up/../../../../../outside/clean.txt`) is judged by where it really lands. A dangling link
 * that stays inside is allowed. (The verification checkout is reset to exactly `tree`, so the tree
 * is what the kernel sees there; judging the tree keeps the check before any run and off the reset.)
 */
export async function symlinksLeavingRepo(
  worktree: string,
  tree: string,
  paths: readonly string[],
  /**
   * Which of `paths` are symlinks in `tree`, when the caller already knows (`changedFilesAndLinks`
   * read it from the same diff): the first `ls-tree` is then skipped (issue 11).
   */
  linksAmongPaths?: readonly string[],
): Promise<string[]> {
  if (paths.length === 0) return [];
  const store = snapshotStoreOf(worktree);
  const options = store ? { env: { GIT_DIR: store.gitDir } } : {};
  const wanted = new Set(paths);
  if (linksAmongPaths !== undefined) {
    if (!linksAmongPaths.some((path) => wanted.has(path))) return [];
    return resolveLinksLeaving(worktree, tree, wanted, options);
  }
  // Only the changed paths are listed first (the whole tree is 20,000 lines on a big repository);
  // a very long list falls back to the whole tree rather than an over-long command line.
  const changedArgs = ["ls-tree", "-r", "-z", "--full-tree", tree];
  if (paths.length <= 500) changedArgs.push("--", ...paths.map((p) => `:(top,literal)${p}`));
  const changedLinks = (await runGit(worktree, changedArgs, options))
    .split("\0")
    .some((entry) => entry.startsWith("120000 ") && wanted.has(entry.slice(entry.indexOf("\t") + 1)));
  if (!changedLinks) return [];
  return resolveLinksLeaving(worktree, tree, wanted, options);
}

async function resolveLinksLeaving(
  worktree: string,
  tree: string,
  wanted: ReadonlySet<string>,
  options: { env?: Record<string, string> },
): Promise<string[]> {
  // A changed link is resolved through the whole tree: a component of its path may itself be a
  // link (review row 8: a chain of inside-looking links that leaves the repository).
  const listing = await runGit(worktree, ["ls-tree", "-r", "-t", "-z", "--full-tree", tree], options);
  const entries = new Map<string, TreeEntry>();
  const links: { path: string; oid: string }[] = [];
  for (const entry of listing.split("\0")) {
    const match = /^(\d+) (\w+) ([0-9a-f]+)\t(.+)$/s.exec(entry);
    if (!match?.[1] || !match[3] || !match[4]) continue;
    if (match[1] === "120000") links.push({ path: match[4], oid: match[3] });
    else entries.set(match[4], match[2] === "tree" ? "dir" : "file");
  }
  const targets = new Map<string, string>();
  for (const link of links) {
    const target = await runGit(worktree, ["cat-file", "blob", link.oid], options);
    targets.set(link.path, target);
    entries.set(link.path, { link: target });
  }
  const findings: string[] = [];
  for (const [path, target] of targets)
    if (wanted.has(path) && leavesRepo(path, target, entries)) findings.push(`${path} -> ${target}`);
  return findings;
}

/** What a path of the tree is: a directory, a file, or a symlink with its target. */
type TreeEntry = "dir" | "file" | { link: string };

/** What a byte that is not UTF-8 decodes to in git's output. */
const UNDECODABLE = "\uFFFD";

/** How many links one resolution follows before it is refused as a loop (Linux: 40). */
const MAX_LINK_HOPS = 40;

const isAbsoluteTarget = (target: string): boolean =>
  target.startsWith("/") || /^[A-Za-z]:[\\/]/.test(target) || target.startsWith("\\");

/**
 * Whether the link at `linkPath` resolves outside the repository (or into `.git`) in a checkout of
 * the tree `entries` describes: components are walked from the top, a link among them is replaced
 * by its target (relative to the link's folder) before the rest is walked; a component the tree
 * does not hold ends the walk, and the rest is taken lexically (a dangling link).
 */
function leavesRepo(linkPath: string, target: string, entries: Map<string, TreeEntry>): boolean {
  if (isAbsoluteTarget(target)) return true;
  // git's names and link targets reach devflow decoded as UTF-8: bytes that are not become U+FFFD,
  // and two names that differ only there become one entry (session-25 review: a folder `s\xfe`
  // and a link `s\xff` shared one; the walk took the link, the kernel the folder, and a link
  // through it left the repository unseen). Such a name cannot be resolved here: fail closed.
  if (linkPath.includes(UNDECODABLE) || target.includes(UNDECODABLE)) return true;
  const split = (p: string) =>
    p
      .replace(/\\/g, "/")
      .split("/")
      .filter((c) => c !== "" && c !== ".");
  let pending = [...split(posix.dirname(linkPath)), ...split(target)];
  const at: string[] = [];
  let hops = 0;
  let missing = false;
  while (pending.length > 0) {
    const [component, ...rest] = pending as [string, ...string[]];
    pending = rest;
    if (component === "..") {
      if (at.length === 0) return true;
      at.pop();
      continue;
    }
    at.push(component);
    if (at[0] === ".git" || component.includes(UNDECODABLE)) return true;
    if (missing) continue;
    const entry = entries.get(at.join("/"));
    if (entry === undefined) {
      missing = true;
      continue;
    }
    if (typeof entry === "object") {
      if (++hops > MAX_LINK_HOPS || isAbsoluteTarget(entry.link)) return true;
      at.pop();
      pending = [...split(entry.link), ...pending];
    }
  }
  return false;
}
