import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, posix } from "node:path";
import { gitOutputAndExit, runGit } from "./git.js";
import { snapshotStoreOf, storeEnv } from "./snapshot-store.js";

/** One path taken from base into a tree, and whether the snapshot had it otherwise. */
export interface FileFromBase {
  path: string;
  /** The snapshot's entry differed from base (changed, removed or its mode changed). */
  changed: boolean;
  /** Base does not track it: the snapshot's entry was dropped (only with `dropAdded`). */
  added?: true;
}

export interface TreeWithBaseFiles {
  tree: string;
  /** The candidate paths base tracks, in the order given (others are left as the snapshot has them). */
  fromBase: FileFromBase[];
}

/**
 * `tree` (a snapshot of `worktree`) with every path of `paths` that `base` tracks as a file replaced
 * by base's entry (content and mode). A path base does not track, or tracks as a directory, is left
 * as the snapshot has it. Built in a throw-away index with devflow's repository when a snapshot store
 * is pinned for `worktree` (ADR 0024), so the coder's checkout's own git dir plays no part; the
 * snapshot itself is untouched. Used for the programs a Verification block runs (ADR 0059), and
 * with `dropAdded` for the test configuration a seam is judged with (ADR 0074): a path base does
 * not track is then removed from the tree (a `.mocharc.cjs` the attempt added is not read).
 */
export async function treeWithBaseFiles(
  worktree: string,
  tree: string,
  base: string,
  paths: readonly string[],
  options: { dropAdded?: boolean } = {},
): Promise<TreeWithBaseFiles> {
  const wanted = [...new Set(paths.map(normalizeRepoPath).filter((p): p is string => p !== null))];
  if (wanted.length === 0) return { tree, fromBase: [] };
  const store = snapshotStoreOf(worktree);
  const scratch = await mkdtemp(join(tmpdir(), "devflow-base-files-"));
  const env = { ...(store ? storeEnv(store, worktree) : {}), GIT_INDEX_FILE: join(scratch, "index") };
  try {
    const onBase = entries(await runGit(worktree, ["ls-tree", "-z", base, "--", ...wanted], { env }));
    const inTree = entries(await runGit(worktree, ["ls-tree", "-z", tree, "--", ...wanted], { env }));
    const fromBase: FileFromBase[] = [];
    const updates: string[] = [];
    for (const path of wanted) {
      const entry = onBase.get(path);
      const now = inTree.get(path);
      if (entry === undefined && options.dropAdded && now !== undefined && now.type === "blob") {
        fromBase.push({ path, changed: true, added: true });
        continue;
      }
      if (entry?.type !== "blob") continue;
      fromBase.push({ path, changed: now?.mode !== entry.mode || now?.sha !== entry.sha });
      updates.push("--cacheinfo", `${entry.mode},${entry.sha},${path}`);
    }
    if (!fromBase.some((f) => f.changed)) return { tree, fromBase };
    await runGit(worktree, ["read-tree", tree], { env });
    // A snapshot may hold a directory where base has the file: drop what is under it first (only
    // there: the other candidates, a directory like `src` among them, stay the attempt's).
    const taken = fromBase.map((f) => f.path);
    await runGit(worktree, ["rm", "-r", "--cached", "--quiet", "--ignore-unmatch", "--", ...taken], { env });
    if (updates.length > 0) await runGit(worktree, ["update-index", "--add", ...updates], { env });
    return { tree: (await runGit(worktree, ["write-tree"], { env })).trim(), fromBase };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

interface TreeEntry {
  mode: string;
  type: string;
  sha: string;
}

/** The paths of `paths` that name an entry of `tree` (a commit or tree), by one `ls-tree`. */
export async function pathsInTree(
  worktree: string,
  tree: string,
  paths: readonly string[],
): Promise<Set<string>> {
  const wanted = [...new Set(paths.map(normalizeRepoPath).filter((p): p is string => p !== null))];
  if (wanted.length === 0) return new Set();
  return new Set(entries(await runGit(worktree, ["ls-tree", "-z", tree, "--", ...wanted])).keys());
}

/** `ls-tree -z` output by path. */
function entries(output: string): Map<string, TreeEntry> {
  const out = new Map<string, TreeEntry>();
  for (const record of output.split("\0")) {
    const tab = record.indexOf("\t");
    if (tab < 0) continue;
    const [mode, type, sha] = record.slice(0, tab).split(" ");
    if (mode && type && sha) out.set(record.slice(tab + 1), { mode, type, sha });
  }
  return out;
}

/**
 * A repository-relative path (`./a/b` → `a/b`), or null for what cannot name a tracked file inside
 * the repository (absolute, `..`, empty, a glob or a variable git or the shell would expand).
 */
export function normalizeRepoPath(word: string): string | null {
  if (word === "" || word.startsWith("/") || /[*?[\]$`\\]/.test(word) || word.startsWith(":")) return null;
  const path = posix.normalize(word);
  if (path === "." || path.startsWith("../") || path === ".." || path.endsWith("/")) return null;
  return path.startsWith("./") ? path.slice(2) : path;
}

/**
 * The text of `path` in `tree`, or null where the tree has no file there (or a path that cannot
 * name a tracked file). Read with devflow's repository when a snapshot store is pinned for
 * `worktree` (ADR 0024): the coder's git dir plays no part. One git process.
 */
export async function textInTree(worktree: string, tree: string, path: string): Promise<string | null> {
  if (normalizeRepoPath(path) !== path || tree.startsWith("-")) return null;
  const store = snapshotStoreOf(worktree);
  const { exitCode, stdout } = await gitOutputAndExit(worktree, ["cat-file", "blob", `${tree}:${path}`], {
    ...(store ? { env: storeEnv(store, worktree) } : {}),
  });
  return exitCode === 0 ? stdout : null;
}
