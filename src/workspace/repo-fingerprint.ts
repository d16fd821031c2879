import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import {
  commonDirAndHeadCommit,
  statusAndHeadRef,
  trackedUntrackedAndIndex,
} from "./fingerprint-git-facts.js";
import { runGit } from "./git.js";
import {
  fingerprintObjectStore,
  type ObjectStoreFingerprint,
  objectStoreChanges,
} from "./object-store-fingerprint.js";
import { TASK_BRANCH_PREFIX } from "./task-branch.js";

/**
 * A fingerprint of the user's checkout, taken before a run and compared after it (issue 9, class
 * 7): HEAD, every ref but devflow's task branches, the repository's config, hooks and `info/`
 * files, packed-refs, the index-visible status and a content hash of the working tree. Devflow's
 * own home (`.devflow/`, which holds the task worktrees) is left out. Reading it changes nothing:
 * git runs with optional locks off, so `status` does not even refresh the index.
 */
export interface RepoFingerprint {
  version: 1;
  head: { symbolic: string | null; commit: string | null };
  /** refname → object id, without `refs/heads/devflow/*` (those are in `devflow_refs`). */
  refs: Record<string, string>;
  /**
   * devflow's task branches (`refs/heads/devflow/*`) → object id, kept apart: devflow itself moves
   * them, so whether a change is a finding depends on whose branch it is (`DevflowRefJudge`).
   */
  devflow_refs: Record<string, string>;
  /**
   * Every file under the common git dir (config, hooks, info, MERGE_HEAD, *_HEAD, sequencer/,
   * rebase-*, logs, worktrees, ...) → content hash, except `objects/` (see `objects`), `refs/`
   * (see `refs`), devflow's own reflogs (`logs/refs/heads/devflow/*`) and the raw index files;
   * `index` holds the entries and their flags instead (`ls-files -s -v`: skip-worktree and
   * assume-unchanged included; a stat refresh is not a change). Review rows 3-5.
   */
  git_files: Record<string, string>;
  /**
   * The object store by stat (object-store-fingerprint.ts). Absent in fingerprints stored before it
   * was taken: then neither objects nor the wider `git_files` are judged.
   */
  objects?: ObjectStoreFingerprint;
  /** `git status --porcelain=v2 --ignored` lines (without `.devflow/`), sorted. */
  status: string[];
  /** Tracked and untracked-not-ignored files → content hash (a symlink: its target). */
  files: Record<string, string>;
  /** Ignored files: hashed by content when few and small, by size+mtime when more, else only counted. */
  ignored: { mode: "content" | "stat" | "count"; count: number; hash: string };
}

export interface FingerprintLimits {
  /** Ignored files are hashed by content up to this many files and bytes (default 2000 / 32 MiB). */
  ignoredContentFiles?: number;
  ignoredContentBytes?: number;
  /** Over this many ignored files only their number is kept (default 50000). */
  ignoredStatFiles?: number;
}

const DEVFLOW_HOME = ".devflow/";
const READ_ONLY_GIT = { env: { GIT_OPTIONAL_LOCKS: "0" } };
const sha = (data: string | Buffer): string => createHash("sha256").update(data).digest("hex");
const isDevflowRef = (ref: string): boolean => ref.startsWith(`refs/heads/${TASK_BRANCH_PREFIX}`);

export async function fingerprintRepo(
  repoRoot: string,
  limits: FingerprintLimits = {},
): Promise<RepoFingerprint> {
  const git = (args: string[]) => runGit(repoRoot, args, READ_ONLY_GIT);
  const facts = await commonDirAndHeadCommit(repoRoot, READ_ONLY_GIT);
  const commonDir = resolveDir(repoRoot, facts.commonDir);
  const commit = facts.commit;

  const refs: Record<string, string> = {};
  const devflowRefs: Record<string, string> = {};
  for (const line of (await git(["for-each-ref", "--format=%(objectname) %(refname)"])).split("\n")) {
    const space = line.indexOf(" ");
    if (space < 0) continue;
    const ref = line.slice(space + 1);
    (isDevflowRef(ref) ? devflowRefs : refs)[ref] = line.slice(0, space);
  }

  const { status: statusRecords, symbolic } = await statusAndHeadRef(repoRoot, READ_ONLY_GIT);
  const status = statusRecords.filter((entry) => !entryPath(entry).startsWith(DEVFLOW_HOME)).sort();
  const files: Record<string, string> = {};
  const { names, indexEntries } = await trackedUntrackedAndIndex(repoRoot, READ_ONLY_GIT);
  for (const path of names) {
    if (!path.startsWith(DEVFLOW_HOME)) files[path] = hashPath(join(repoRoot, path));
  }
  const ignoredPaths = nulList(
    await git(["ls-files", "-z", "--others", "--ignored", "--exclude-standard"]),
  ).filter((path) => !path.startsWith(DEVFLOW_HOME));

  const fingerprint: RepoFingerprint = {
    version: 1,
    head: { symbolic, commit },
    refs,
    devflow_refs: devflowRefs,
    git_files: { ...gitFiles(commonDir), index: `entries:${sha(indexEntries)}` },
    objects: fingerprintObjectStore(join(commonDir, "objects")),
    status,
    files,
    ignored: hashIgnored(repoRoot, ignoredPaths, limits),
  };
  COMMON_DIRS.set(fingerprint, commonDir);
  return fingerprint;
}

/**
 * The common git dir each fingerprint was taken from, so that comparing the object stores right
 * after taking the `after` fingerprint does not ask git for it again (issue 11: one process less
 * per run). Not part of the stored JSON: a stored fingerprint is never the `after` one.
 */
const COMMON_DIRS = new WeakMap<RepoFingerprint, string>();

/**
 * Whether a change of one of devflow's task branches during a run is devflow's own doing (the
 * run's task branch, another task's run that is live or that recorded the commit). `oid` is null
 * when the branch was removed.
 */
export type DevflowRefJudge = (ref: string, oid: string | null) => boolean;

/** What differs between two fingerprints, one human-readable line per change (empty: identical). */
export function compareFingerprints(
  before: RepoFingerprint,
  after: RepoFingerprint,
  devflowRefIsExplained: DevflowRefJudge,
): string[] {
  const changes: string[] = [];
  if (before.head.symbolic !== after.head.symbolic)
    changes.push(
      `HEAD now points to ${after.head.symbolic ?? "a detached commit"} (was ${before.head.symbolic ?? "detached"})`,
    );
  if (before.head.commit !== after.head.commit)
    changes.push(`HEAD moved from ${short(before.head.commit)} to ${short(after.head.commit)}`);
  changes.push(...mapChanges("ref", before.refs, after.refs, short));
  for (const ref of new Set([...Object.keys(before.devflow_refs), ...Object.keys(after.devflow_refs)])) {
    const was = before.devflow_refs[ref] ?? null;
    const now = after.devflow_refs[ref] ?? null;
    if (was === now || devflowRefIsExplained(ref, now)) continue;
    if (now === null) changes.push(`ref ${ref} removed`);
    else if (was === null) changes.push(`ref ${ref} added at ${short(now)}`);
    else changes.push(`ref ${ref} moved from ${short(was)} to ${short(now)}`);
  }
  // A fingerprint stored before the whole git dir was taken is compared on what it holds.
  const afterGitFiles =
    before.objects === undefined
      ? Object.fromEntries(Object.entries(after.git_files).filter(([rel]) => LEGACY_GIT_FILES.test(rel)))
      : after.git_files;
  changes.push(...mapChanges(".git/", before.git_files, afterGitFiles, () => "", ""));
  const beforeStatus = new Set(before.status);
  const afterStatus = new Set(after.status);
  const statusChanged =
    before.status.length !== after.status.length || before.status.some((line) => !afterStatus.has(line));
  if (statusChanged) {
    const gone = before.status.filter((l) => !afterStatus.has(l)).map(entryPath);
    const added = after.status.filter((l) => !beforeStatus.has(l)).map(entryPath);
    changes.push(`git status changed: ${listed([...new Set([...gone, ...added])])}`);
  }
  changes.push(...mapChanges("file", before.files, after.files, () => ""));
  const bi = before.ignored;
  const ai = after.ignored;
  if (bi.mode !== ai.mode || bi.count !== ai.count || bi.hash !== ai.hash)
    changes.push(`ignored files changed (${bi.count} → ${ai.count} files, compared by ${ai.mode})`);
  return changes;
}

/** The object-store part of the comparison (it re-reads what changed, so it is async). */
export async function compareObjectStores(
  repoRoot: string,
  before: Pick<RepoFingerprint, "objects">,
  after: Pick<RepoFingerprint, "objects">,
): Promise<string[]> {
  if (before.objects === undefined || after.objects === undefined) return [];
  const commonDir =
    COMMON_DIRS.get(after as RepoFingerprint) ??
    resolveDir(repoRoot, (await runGit(repoRoot, ["rev-parse", "--git-common-dir"], READ_ONLY_GIT)).trim());
  return objectStoreChanges(join(commonDir, "objects"), before.objects, after.objects);
}

/** What a version-1 fingerprint without `objects` held in git_files. */
const LEGACY_GIT_FILES = /^(config|packed-refs|hooks|info|commondir|shallow)(\/|$)/;

/** Whether the checkout has changes a task started from HEAD does not include. */
export function uncommittedPaths(fingerprint: Pick<RepoFingerprint, "status">): string[] {
  return fingerprint.status.filter((entry) => !entry.startsWith("! ")).map(entryPath);
}

function mapChanges(
  what: string,
  before: Record<string, string>,
  after: Record<string, string>,
  show: (value: string) => string,
  sep = " ",
): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(before)) {
    if (!(key in after)) out.push(`${what}${sep}${key} removed`);
    else if (after[key] !== value) {
      const from = show(value);
      out.push(
        from
          ? `${what}${sep}${key} moved from ${from} to ${show(after[key] as string)}`
          : `${what}${sep}${key} changed`,
      );
    }
  }
  for (const key of Object.keys(after)) if (!(key in before)) out.push(`${what}${sep}${key} added`);
  return out;
}

/** Not walked: objects and refs are judged apart, devflow's reflogs are devflow's, raw index files by entries. */
const NOT_GIT_FILES = [
  /^objects$/,
  /^refs$/,
  /^index$/,
  /^worktrees\/[^/]+\/index$/,
  /^logs\/refs\/heads\/devflow$/,
];

function gitFiles(commonDir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const add = (rel: string) => {
    if (NOT_GIT_FILES.some((re) => re.test(rel))) return;
    const full = join(commonDir, rel);
    let text: Buffer | null = null;
    try {
      const stat = lstatSync(full);
      if (stat.isDirectory()) {
        for (const entry of readdirSync(full).sort()) add(rel ? join(rel, entry) : entry);
        return;
      }
      text = stat.isSymbolicLink() ? Buffer.from(`symlink:${readlinkSync(full)}`) : readFileSync(full);
      if (rel === "packed-refs") text = Buffer.from(withoutDevflowRefs(text.toString("utf8")));
      out[rel] = `${sha(text)}:${stat.mode.toString(8)}`;
    } catch {
      // absent: not part of the fingerprint
    }
  };
  add("");
  return out;
}

/** packed-refs without devflow's task branches (and the peeled `^` line after one). */
function withoutDevflowRefs(text: string): string {
  const kept: string[] = [];
  let skipping = false;
  for (const line of text.split("\n")) {
    if (line.startsWith("^")) {
      if (!skipping) kept.push(line);
      continue;
    }
    skipping = isDevflowRef(line.split(" ")[1] ?? "");
    if (!skipping) kept.push(line);
  }
  return kept.join("\n");
}

function hashIgnored(
  repoRoot: string,
  paths: string[],
  limits: FingerprintLimits,
): RepoFingerprint["ignored"] {
  const maxContentFiles = limits.ignoredContentFiles ?? 2000;
  const maxContentBytes = limits.ignoredContentBytes ?? 32 * 1024 * 1024;
  const maxStatFiles = limits.ignoredStatFiles ?? 50_000;
  const sorted = [...paths].sort();
  if (sorted.length > maxStatFiles) return { mode: "count", count: sorted.length, hash: "" };
  const stats = sorted.map((path) => {
    try {
      const stat = lstatSync(join(repoRoot, path));
      return { path, size: stat.size, mtime: stat.mtimeMs, mode: stat.mode };
    } catch {
      return { path, size: -1, mtime: 0, mode: 0 };
    }
  });
  const total = stats.reduce((sum, s) => sum + Math.max(0, s.size), 0);
  const hash = createHash("sha256");
  if (sorted.length <= maxContentFiles && total <= maxContentBytes) {
    for (const { path } of stats) hash.update(`${path}\0${hashPath(join(repoRoot, path))}\0`);
    return { mode: "content", count: sorted.length, hash: hash.digest("hex") };
  }
  for (const s of stats) hash.update(`${s.path}\0${s.size}\0${s.mtime}\0${s.mode}\0`);
  return { mode: "stat", count: sorted.length, hash: hash.digest("hex") };
}

function hashPath(full: string): string {
  try {
    const stat = lstatSync(full);
    if (stat.isSymbolicLink()) return `link:${sha(readlinkSync(full))}`;
    if (stat.isDirectory()) return "dir"; // a submodule or nested repo
    return `${stat.mode & 0o111 ? "x" : "f"}:${sha(readFileSync(full))}`;
  } catch {
    return "missing";
  }
}

function nulList(output: string): string[] {
  return output.split("\0").filter((entry) => entry !== "");
}

/**
 * The path of a porcelain v2 entry (`1 XY ... path`, `2 ... path` (the next NUL entry is the
 * original path), `u ... path`, `? path`, `! path`).
 */
function entryPath(entry: string): string {
  const kind = entry[0];
  const fields = kind === "1" ? 8 : kind === "2" ? 9 : kind === "u" ? 10 : 1;
  return entry.split(" ").slice(fields).join(" ") || entry;
}

function resolveDir(repoRoot: string, dir: string): string {
  return isAbsolute(dir) ? dir : resolve(repoRoot, dir);
}

const short = (value: string | null): string => (value ? value.slice(0, 10) : "(none)");
const listed = (paths: string[]): string =>
  paths.length <= 8 ? paths.join(", ") : `${paths.slice(0, 8).join(", ")} and ${paths.length - 8} more`;
