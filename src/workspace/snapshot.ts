import { existsSync, rmSync, writeFileSync } from "node:fs";
import { copyFile, mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { DevflowError } from "../errors/index.js";
import { recordOwnIndex } from "./coder-checkout-reuse.js";
import { runGit } from "./git.js";
import { withTextShownAsText } from "./readable-patch.js";
import { type SnapshotStore, snapshotStoreOf, storeEnv } from "./snapshot-store.js";
import type { OwnIndex } from "./types.js";
import { backdateIndex } from "./verify-index-record.js";

/**
 * The git tree of everything in `worktree` right now, untracked files included and ignored ones
 * left out, whatever the coder committed or left unstaged. It is built in a throw-away copy of the
 * index (GIT_INDEX_FILE), so the worktree's real index, HEAD and branch are untouched. When devflow
 * pinned a snapshot store for `worktree` (a task checkout, ADR 0024) the tree is written there.
 */
export async function snapshotTree(worktree: string): Promise<string> {
  const store = snapshotStoreOf(worktree);
  if (store) return snapshotIntoStore(store, worktree);
  const scratch = await mkdtemp(join(tmpdir(), "devflow-index-"));
  const index = join(scratch, "index");
  try {
    // Starting from a copy of the real index keeps tracked-but-ignored files tracked (as a
    // commit would) and reuses its stat cache instead of re-hashing every file.
    const realIndex = resolve(
      worktree,
      (await runGit(worktree, ["rev-parse", "--git-path", "index"])).trim(),
    );
    // The copy keeps the real index's time (backdated): git compares the content of an entry
    // written in the same second as its index ("racy"), judged by the index file's time. A copy
    // stamped now made a same-size rewrite in that second look clean (CI of stop 49). The time is
    // read before the copy: an index rewritten in between only makes the copy older, so more racy.
    const written = await stat(realIndex).then(
      (info) => info.mtimeMs,
      (error: NodeJS.ErrnoException) => {
        if (error.code !== "ENOENT") throw error;
        return undefined;
      },
    );
    if (written !== undefined) {
      await copyFile(realIndex, index);
      backdateIndex(index, written);
    }
    const env = { GIT_INDEX_FILE: index };
    await runGit(worktree, ["add", "--all"], { env });
    return (await runGit(worktree, ["write-tree"], { env })).trim();
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * Starts the snapshot index of `worktree`'s pinned store from `own`, the index devflow's checkout
 * of the base wrote there before any coder ran (`TaskWorkspace.baseIndex`), so the task's first
 * snapshot compares stat data instead of hashing every file (issue 11: 220-320 ms of a 20,000-file
 * repository's first attempt). Trusting it is trusting the stat check as every later snapshot
 * already does: devflow's git compares ctime too, which no process without root can set back, and
 * the time is kept, rounded down, so entries written in the same instant stay racy (their content
 * is compared). False (nothing written) when no store is pinned for `worktree`.
 */
export function seedSnapshotIndex(worktree: string, own: OwnIndex): boolean {
  const store = snapshotStoreOf(worktree);
  if (!store) return false;
  rmSync(`${store.indexFile}.lock`, { force: true });
  // A link planted in its place is replaced, never written through.
  rmSync(store.indexFile, { force: true });
  writeFileSync(store.indexFile, own.bytes);
  backdateIndex(store.indexFile, own.mtimeMs);
  return true;
}

/**
 * The snapshot written into devflow's own repository: git reads `worktree` as a work tree only
 * (GIT_DIR/GIT_WORK_TREE/GIT_INDEX_FILE), so the checkout's config, attribute filters, excludes
 * and object store play no part; a file hidden through its `info/exclude` is in the snapshot.
 */
async function snapshotIntoStore(store: SnapshotStore, worktree: string): Promise<string> {
  const env = storeEnv(store, worktree);
  // devflow holds the task lock: a lock file left here is from a devflow that was killed mid-way.
  await rm(`${store.indexFile}.lock`, { force: true });
  if (!existsSync(store.indexFile)) await runGit(worktree, ["read-tree", store.baseCommit], { env });
  await runGit(worktree, ["add", "--all", "--", ".", ...store.exclude], { env });
  const tree = (await runGit(worktree, ["write-tree"], { env })).trim();
  // After write-tree (it stores the cache tree in the index): this index, with the stat data of
  // the coder's files as they are now, is what a later task may start its checkout from.
  if (store.indexRecord) recordOwnIndex(store.indexFile, store.indexRecord);
  return tree;
}

/**
 * Ignored files in `worktree` that its snapshot does not hold (`dir/` for a whole ignored folder),
 * read with devflow's repository: what a test could have seen there but verification will not.
 * [] when no store is pinned for `worktree`.
 */
export async function ignoredOutsideSnapshot(worktree: string): Promise<string[]> {
  const store = snapshotStoreOf(worktree);
  if (!store) return [];
  const out = await runGit(
    worktree,
    [
      "ls-files",
      "-z",
      "--others",
      "--ignored",
      "--exclude-standard",
      "--directory",
      "--",
      ".",
      ...store.exclude,
    ],
    { env: storeEnv(store, worktree) },
  );
  return out
    .split("\0")
    .filter((name) => name !== "")
    .sort();
}

export interface TreeDiff {
  /**
   * A unified diff (binary-safe, renames detected) from `fromTree` to `toTree`, for reading: a file
   * git calls binary whose content reads as text is shown as text, after the rest (readable-patch.ts).
   */
  patch: string;
  /** Repo-relative paths added, modified or deleted; a rename lists both its old and new path. */
  files: string[];
  /** The same change path by path (a rename as a deletion and an addition): what `composeChanges` reads. */
  changes: PathChange[];
}

/**
 * One path's change between two trees, as a `--raw` record says it: mode and object id on each
 * side, `000000` and an all-zero id where the path is absent. A rename is two of these (its old
 * path deleted, its new path added), exactly what `--no-renames` would print.
 */
export interface PathChange {
  path: string;
  oldMode: string;
  oldId: string;
  newMode: string;
  newId: string;
}

const NEUTRAL_DIFF = ["--no-ext-diff", "--no-textconv", "--no-color"];

/** `diffTrees`'s patch: binary-safe, with renames, a/ and b/ prefixes. */
const PATCH = [...NEUTRAL_DIFF, "--binary", "--find-renames", "--src-prefix=a/", "--dst-prefix=b/"];

/** `diffTrees`'s output: `--raw -z` records, then the patch. */
const PATCH_AND_NAMES = [
  ...PATCH,
  "--raw",
  // Whole object ids in the records (`git diff` abbreviates them; diff-tree does not): composeChanges
  // compares them across the two commands.
  "--no-abbrev",
  "-z",
  "-p",
];

/**
 * What changed between two trees (or commits), independent of the user's diff settings. One git
 * process (issue 11: it was two, the patch and then the names): `--raw -z` records first, each
 * `:<modes> <shas> <status>\0<path>\0` (renames `R<n>\0<old>\0<new>\0`), a NUL, then the patch.
 */
export async function diffTrees(
  worktree: string,
  fromTree: string,
  toTree: string,
  next: { alsoFrom?: string } = {},
): Promise<TreeDiff> {
  for (const rev of [fromTree, toTree]) assertRevision(rev);
  const store = snapshotStoreOf(worktree);
  const options = store ? { env: storeEnv(store, worktree) } : {};
  const key = memoKey(store?.gitDir ?? worktree, fromTree, toTree);
  if (key !== null && lastDiff?.key === key) return lastDiff.diff;
  const alsoKey =
    next.alsoFrom === undefined ? null : memoKey(store?.gitDir ?? worktree, next.alsoFrom, toTree);
  if (
    next.alsoFrom !== undefined &&
    key !== null &&
    alsoKey !== null &&
    next.alsoFrom !== fromTree &&
    fromTree !== toTree &&
    next.alsoFrom !== toTree
  ) {
    const both = await diffTreePairs(
      worktree,
      [
        [fromTree, toTree],
        [next.alsoFrom, toTree],
      ],
      options,
    );
    if (both) {
      const [diff, also] = both as [TreeDiff, TreeDiff];
      lastDiff = { key: alsoKey, diff: await readable(worktree, also, next.alsoFrom, toTree, options) };
      return readable(worktree, diff, fromTree, toTree, options);
    }
  }
  const out = await runGit(worktree, ["diff", ...PATCH_AND_NAMES, fromTree, toTree, "--"], options);
  const diff = await readable(worktree, splitRawAndPatch(out), fromTree, toTree, options);
  lastDiff = key === null ? null : { key, diff };
  return diff;
}

/** `diff` with its patch showing as text what reads as text (readable-patch.ts, attack 58b). */
async function readable(
  worktree: string,
  diff: TreeDiff,
  fromTree: string,
  toTree: string,
  options: { env?: Record<string, string> },
): Promise<TreeDiff> {
  const patch = await withTextShownAsText(worktree, diff.patch, fromTree, toTree, PATCH, options);
  return patch === diff.patch ? diff : { ...diff, patch };
}

/**
 * Diffs of several pairs of distinct trees (full object ids) from one `git diff-tree --stdin`
 * process (issue 11: a repair attempt's code node diffs the previous attempt's tree and verify then
 * diffs the seam tree, against the same new tree). Same options as `diffTrees`, whose answer for
 * each pair it gives byte for byte (pinned in snapshot.test.ts): diff-tree echoes each input line
 * before that pair's `--raw -z` records and patch, and a patch line never is `<id> <id>` (every
 * patch line starts with a marker, and a path with a newline is quoted there), so the next pair's
 * echoed line ends the patch before it. null when the output is not shaped like that (never
 * expected): the caller asks pair by pair.
 */
async function diffTreePairs(
  worktree: string,
  pairs: readonly (readonly [string, string])[],
  options: { env?: Record<string, string> },
): Promise<TreeDiff[] | null> {
  const out = await runGit(worktree, ["diff-tree", "--stdin", "-r", ...PATCH_AND_NAMES], {
    ...options,
    input: pairs.map(([from, to]) => `${from} ${to}\n`).join(""),
  });
  const diffs: TreeDiff[] = [];
  let at = 0;
  for (const [i, [from, to]] of pairs.entries()) {
    const echoed = `${from} ${to}\n`;
    if (!out.startsWith(echoed, at)) return null;
    at += echoed.length;
    const following = pairs[i + 1];
    let end = out.length;
    if (following) {
      const next = out.indexOf(`\n${following[0]} ${following[1]}\n`, at);
      if (next < 0) return null;
      end = next + 1;
    }
    diffs.push(splitRawAndPatch(out.slice(at, end)));
    at = end;
  }
  return diffs;
}

/**
 * The last diff of two object ids, kept for the next identical question: the code node diffs the
 * attempt (from the seam tree on a first attempt) and verify then asks for the change since the
 * seam tree, the same pair (issue 11: it was computed twice, a 10.7 MB diff included). Object ids
 * name their content, so the answer cannot go stale; names (HEAD, a branch) are never kept. One
 * entry: a large diff is held once, not per attempt.
 */
let lastDiff: { key: string; diff: TreeDiff } | null = null;

const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

function memoKey(repo: string, fromTree: string, toTree: string): string | null {
  return OBJECT_ID.test(fromTree) && OBJECT_ID.test(toTree)
    ? `${resolve(repo)}\0${fromTree}\0${toTree}`
    : null;
}

/** The `--raw -z` records (both paths of a rename) and the patch after them. */
export function splitRawAndPatch(out: string): TreeDiff {
  const { changes, end } = readRawRecords(out, 0);
  const at = out[end] === "\0" ? end + 1 : end;
  return { patch: out.slice(at), files: [...new Set(changes.map((c) => c.path))].sort(), changes };
}

/**
 * `--raw -z` records from `from` on: `:<old mode> <new mode> <old id> <new id> <status>\0<path>\0`,
 * a rename `R<n>\0<old>\0<new>\0` (split into a deletion and an addition). Copies are never asked
 * for (no -C): one is refused rather than guessed at.
 */
function readRawRecords(out: string, from: number): { changes: PathChange[]; end: number } {
  const changes: PathChange[] = [];
  let at = from;
  const field = (): string => {
    const end = out.indexOf("\0", at);
    if (end < 0)
      throw new DevflowError("GIT_FAILED", "git diff --raw -z printed a record without its terminator");
    const value = out.slice(at, end);
    at = end + 1;
    return value;
  };
  while (out[at] === ":") {
    const record = field();
    const [oldMode, newMode, oldId, newId, status] = record.slice(1).split(" ");
    if (!oldMode || !newMode || !oldId || !newId || !status || status.startsWith("C"))
      throw new DevflowError(
        "GIT_FAILED",
        `git diff --raw -z printed an unexpected record ${JSON.stringify(record)}`,
      );
    const path = field();
    if (status.startsWith("R")) {
      const absent = { mode: "000000", id: "0".repeat(oldId.length) };
      changes.push({ path, oldMode, oldId, newMode: absent.mode, newId: absent.id });
      changes.push({ path: field(), oldMode: absent.mode, oldId: absent.id, newMode, newId });
    } else changes.push({ path, oldMode, oldId, newMode, newId });
  }
  return { changes, end: at };
}

/**
 * The change from A to C, from the change A→B and the change B→C, with no git process (issue 11:
 * verify asked git for the change since base on every attempt; the base→seam part is fixed per task
 * and the seam→attempt part is the attempt's diff, already read). Exact: a path changed in neither
 * is equal on all three trees; one changed in only one step is changed from A to C; one changed in
 * both is changed iff its mode or object differs between A and C (an edit put back cancels out).
 */
export function composeChanges(
  first: readonly PathChange[],
  second: readonly PathChange[],
): ChangedFilesAndLinks {
  const before = new Map<string, { mode: string; id: string }>();
  const after = new Map<string, { mode: string; id: string }>();
  for (const c of first) {
    before.set(c.path, { mode: c.oldMode, id: c.oldId });
    after.set(c.path, { mode: c.newMode, id: c.newId });
  }
  for (const c of second) {
    if (!before.has(c.path)) before.set(c.path, { mode: c.oldMode, id: c.oldId });
    after.set(c.path, { mode: c.newMode, id: c.newId });
  }
  const files: string[] = [];
  const links: string[] = [];
  for (const [path, was] of before) {
    const now = after.get(path) as { mode: string; id: string };
    if (was.mode === now.mode && was.id === now.id) continue;
    files.push(path);
    if (now.mode === "120000") links.push(path);
  }
  return { files: files.sort(), links: links.sort() };
}

/**
 * The repo-relative paths that differ between two trees (sorted; a rename lists both paths), without
 * the patch: one git process, for callers that only judge names (scope against base, symlinks).
 */
export async function changedFiles(worktree: string, fromTree: string, toTree: string): Promise<string[]> {
  return (await changedFilesAndLinks(worktree, fromTree, toTree)).files;
}

/** What differs between two trees, by name, and which of those names are symlinks in the second. */
export interface ChangedFilesAndLinks {
  /** As `changedFiles`: sorted, a rename at both paths. */
  files: string[];
  /** The changed paths that are a symlink (mode 120000) in `toTree`, sorted. */
  links: string[];
}

/**
 * `changedFiles` plus the changed paths that are symlinks in `toTree`, from one `git diff --raw -z
 * --no-renames` (issue 11: the verify node listed the names, then ran `ls-tree` on them to find the
 * links; the raw record's new mode already says it). A deleted path has new mode 000000, so only
 * links present in `toTree` are named, as `ls-tree` of that tree would.
 */
export async function changedFilesAndLinks(
  worktree: string,
  fromTree: string,
  toTree: string,
): Promise<ChangedFilesAndLinks> {
  return composeChanges(await pathChanges(worktree, fromTree, toTree), []);
}

/**
 * What differs between two trees, path by path (`PathChange`), from one `git diff --raw -z
 * --no-renames`: a moved file counts as a change at both paths (both matter to scope checks).
 */
export async function pathChanges(worktree: string, fromTree: string, toTree: string): Promise<PathChange[]> {
  for (const rev of [fromTree, toTree]) assertRevision(rev);
  const store = snapshotStoreOf(worktree);
  const options = store ? { env: storeEnv(store, worktree) } : {};
  const out = await runGit(
    worktree,
    ["diff", ...NEUTRAL_DIFF, "--raw", "--no-abbrev", "--no-renames", "-z", fromTree, toTree, "--"],
    options,
  );
  const { changes, end } = readRawRecords(out, 0);
  if (end !== out.length)
    throw new DevflowError(
      "GIT_FAILED",
      `git diff --raw -z printed ${out.length - end} bytes after its records`,
    );
  return changes;
}

function assertRevision(rev: string): void {
  if (rev.trim() === "" || rev.startsWith("-")) {
    throw new DevflowError("BAD_REVISION", `invalid tree ${JSON.stringify(rev)}: pass a tree or commit sha`);
  }
}
