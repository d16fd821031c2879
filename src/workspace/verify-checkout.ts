import {
  appendFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { rm } from "node:fs/promises";
import { dirname, join, posix, resolve } from "node:path";
import { DevflowError } from "../errors/index.js";
import { ensureDevflowDir, verifyCheckoutDir, verifyGitDir, verifyIndexRecord } from "../home/paths.js";

import { pinGitDir, runGit } from "./git.js";
import { samePath } from "./paths.js";
import { pinSnapshotStore, snapshotStoreOf } from "./snapshot-store.js";
import { writeIndexRecord } from "./verify-index-record.js";

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

/** devflow's settings for its own repository: nothing from the user or the coder runs here. */
const OWN_CONFIG: [string, string][] = [
  ["core.hooksPath", "/dev/null"],
  ["core.fsmonitor", "false"],
  ["core.autocrlf", "false"],
  ["gc.auto", "0"],
];

/**
 * Opens (creating it the first time) the task's verification checkout and pins it as the snapshot
 * store of the coder's checkout. Idempotent and cheap: called when a task starts or resumes and by
 * every node that runs something in it.
 */
export async function openVerifyCheckout(request: VerifyCheckoutRequest): Promise<VerifyCheckout> {
  const { repoRoot, taskId, baseCommit, coderCheckout } = request;
  if (!/^[0-9a-f]{40,64}$/.test(baseCommit))
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
  // Written as text, not by one `git config` process per key (they add up per task).
  appendFileSync(join(gitDir, "config"), OWN_CONFIG.map(([key, value]) => configLine(key, value)).join(""));
  mkdirSync(join(gitDir, "objects", "info"), { recursive: true });
  writeFileSync(join(gitDir, "objects", "info", "alternates"), `${userObjects}\n`);
  // HEAD at the base (detached): a test that asks git about the checkout sees the change as the diff.
  writeFileSync(join(gitDir, "HEAD"), `${baseCommit}\n`);
}

function configLine(key: string, value: string): string {
  const dot = key.lastIndexOf(".");
  return `[${key.slice(0, dot)}]\n\t${key.slice(dot + 1)} = ${value}\n`;
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
  const index = join(checkout.gitDir, "index");
  await rm(`${index}.lock`, { force: true });
  const rewroteAll = !restoreOwnIndex(index);
  await runGit(checkout.dir, ["read-tree", "-u", "--reset", treeish], { config: STAT_CHECK_CONFIG });
  const fresh = FRESH.delete(resolve(checkout.gitDir));
  if (!fresh) {
    const kept = keep.filter((link) => isSymlinkTo(join(checkout.dir, link.path), link.target));
    await runGit(checkout.dir, ["clean", "-ffdxq", ...kept.flatMap((link) => ["-e", `/${link.path}`])]);
  }
  const own = { bytes: readFileSync(index), mtimeMs: statSync(index).mtimeMs };
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

/** The stat check read-tree does on every unchanged file, whatever the git dir's config says. */
const STAT_CHECK_CONFIG = [
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
  // Its old time, rounded down: entries written in the same instant stay racy (git compares their content).
  const mtime = new Date(Math.floor(own.mtimeMs) - 1);
  utimesSync(index, mtime, mtime);
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
 * Symlinks among `paths` in `tree` whose target leaves the repository (absolute, `..` above the top,
 * or into `.git`), as `path -> target`. Read from the snapshot store pinned for `worktree`.
 */
export async function symlinksLeavingRepo(
  worktree: string,
  tree: string,
  paths: readonly string[],
): Promise<string[]> {
  if (paths.length === 0) return [];
  const store = snapshotStoreOf(worktree);
  const options = store ? { env: { GIT_DIR: store.gitDir } } : {};
  const wanted = new Set(paths);
  // Only the changed paths are listed (the whole tree is 20,000 lines on a big repository); a very
  // long list falls back to the whole tree rather than an over-long command line.
  const listArgs = ["ls-tree", "-r", "-z", "--full-tree", tree];
  if (paths.length <= 500) listArgs.push("--", ...paths.map((p) => `:(top,literal)${p}`));
  const listing = await runGit(worktree, listArgs, options);
  const links: { path: string; oid: string }[] = [];
  for (const entry of listing.split("\0")) {
    const match = /^120000 blob ([0-9a-f]+)\t(.+)$/s.exec(entry);
    if (match?.[1] && match[2] && wanted.has(match[2])) links.push({ path: match[2], oid: match[1] });
  }
  const findings: string[] = [];
  // One process per changed symlink: rare, and the blob is read exactly as git stores it.
  for (const link of links) {
    const target = await runGit(worktree, ["cat-file", "blob", link.oid], options);
    if (leavesRepo(link.path, target)) findings.push(`${link.path} -> ${target}`);
  }
  return findings;
}

function leavesRepo(linkPath: string, target: string): boolean {
  if (target.startsWith("/") || /^[A-Za-z]:[\\/]/.test(target) || target.startsWith("\\")) return true;
  const joined = posix.normalize(posix.join(posix.dirname(linkPath), target.replace(/\\/g, "/")));
  const first = joined.split("/")[0];
  return first === ".." || first === ".git";
}
