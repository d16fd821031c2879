import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { devflowDir } from "../../../home/index.js";
import type { RepoMounts } from "../../../process/mount-namespace.js";
import { configuresTests, expectedFailureMarkers, type MarkedSourceChange } from "../../../verify/index.js";
import {
  type FileFromBase,
  openVerifyCheckout,
  resetVerifyCheckout,
  textInTree,
  treeWithBaseFiles,
} from "../../../workspace/index.js";
import { dependencyLinks, installedDependencyDirs, linkDependencies } from "../link-dependencies.js";

/** What locates a task's checkouts (a subset of the lane state). */
export interface TaskCheckouts {
  repoRoot: string;
  taskId: string;
  baseCommit: string;
  worktree: string;
}

/**
 * The task's verification checkout (ADR 0024) reset to exactly `treeish` (a snapshot tree, or the
 * base commit for the base runs), with the user's installed dependencies linked as in the coder's
 * checkout. Returns its directory: seam, seam integrity, regression and the base runs happen there.
 */
export async function verificationCheckoutAt(task: TaskCheckouts, treeish: string): Promise<string> {
  const checkout = await openVerifyCheckout({
    repoRoot: task.repoRoot,
    taskId: task.taskId,
    baseCommit: task.baseCommit,
    coderCheckout: task.worktree,
  });
  await resetVerifyCheckout(checkout, treeish, dependencyLinks(task.repoRoot));
  await linkDependencies(task.repoRoot, checkout.dir);
  return checkout.dir;
}

/**
 * The verification checkout at `snapshot`, except that each of `programs` base tracks is as on base
 * (a Verification block's own scripts, ADR 0059): the block checks the attempt's code with the
 * checks its author wrote, whatever the attempt did to them. The snapshot (what is committed) is
 * unchanged; says which programs were taken from base and which of them the attempt had changed.
 */
export async function checkoutWithBasePrograms(
  task: TaskCheckouts,
  snapshot: string,
  programs: readonly string[],
): Promise<{ dir: string; fromBase: FileFromBase[] }> {
  const { tree, fromBase } = await treeWithBaseFiles(task.worktree, snapshot, task.baseCommit, programs);
  return { dir: await verificationCheckoutAt(task, tree), fromBase };
}

/** The tree a seam is judged in (ADR 0074). */
export interface SeamTree {
  /** The snapshot itself when the attempt changed no test configuration. */
  tree: string;
  /** The test configuration files the attempt changed, here as on base (absent where base has none). */
  fromBase: string[];
}

/**
 * `snapshot`, except that every test configuration file the attempt changed (`configuresTests`:
 * runner, npm, transform, path-map and pytest configs, package.json) is as on base, and one base
 * does not have is gone (ADR 0074). The seam tests what the attempt did to the code under the
 * configuration the seam was confirmed red with: an alias, a preload, a module mapper or a new
 * setup file of the attempt's cannot make it green. The snapshot (what is committed, what seam
 * integrity and regression check) keeps the attempt's configuration. No git process when the
 * attempt changed no configuration file.
 */
export async function seamTreeAt(
  task: TaskCheckouts,
  snapshot: string,
  changedSinceBase: readonly string[],
  /** What base's configuration loads besides the configuration files (the contract's `test_config_imports`). */
  configImports: readonly string[] = [],
): Promise<SeamTree> {
  const loaded = new Set(configImports);
  const configs = changedSinceBase.filter((file) => configuresTests(file) || loaded.has(file));
  const { tree, fromBase } = await treeWithBaseFiles(task.worktree, snapshot, task.baseCommit, configs, {
    dropAdded: true,
  });
  return { tree, fromBase: fromBase.filter((f) => f.changed).map((f) => f.path) };
}

/**
 * The tree regression runs in once more when the attempt changed test configuration (ADR 0082):
 * the seam's tree (base's copy of what `configuresTests` knows and base's configuration loads),
 * with base's copy also of every changed file `suiteConfig` says configures the suite (a config
 * the test command names by flag, a recipe it runs); one base does not have is left out. The same
 * tree as the seam's, and no git process, when there is nothing more.
 */
export async function suiteTreeAt(
  task: TaskCheckouts,
  seamTree: SeamTree,
  changedSinceBase: readonly string[],
  suiteConfig: (file: string) => boolean,
): Promise<SeamTree> {
  const more = changedSinceBase.filter((file) => suiteConfig(file) && !seamTree.fromBase.includes(file));
  if (more.length === 0) return seamTree;
  const { tree, fromBase } = await treeWithBaseFiles(task.worktree, seamTree.tree, task.baseCommit, more, {
    dropAdded: true,
  });
  return { tree, fromBase: [...seamTree.fromBase, ...fromBase.filter((f) => f.changed).map((f) => f.path)] };
}

/**
 * How a confined run of the task sees the repository where mount namespaces work (ADR 0025,
 * 0031): the user's checkout read-only, devflow's home hidden (the caller exposes the checkout the
 * run works in), the user's installed dependencies read-only wherever they really live. For the
 * verification commands (`copyOnWrite`) the dependencies get a throwaway writable layer, so the
 * runners' caches inside `node_modules` work while the user's copy stays untouched.
 */
export const repoMounts = (task: Pick<TaskCheckouts, "repoRoot">, copyOnWrite: boolean): RepoMounts => ({
  readOnly: task.repoRoot,
  hide: devflowDir(task.repoRoot),
  dependencies: installedDependencyDirs(task.repoRoot).map((path) => ({ path, copyOnWrite })),
});

/** Every verification command runs the coder's code, so it gets the coder's confinement (ADR 0031). */
export const verifierMounts = (task: Pick<TaskCheckouts, "repoRoot">): RepoMounts => repoMounts(task, true);

/**
 * Larger changed source files are not read for markers (no test file is this big); each is
 * reported as a finding instead, so padding a test file cannot hide one.
 */
const MARKER_READ_CAP_BYTES = 64 * 1024 * 1024;

/**
 * The changed files that hold an expected-failure marker in the attempt (ADR 0081), each with its
 * text on base, for regression to judge. Read from the coder's checkout, which holds what the
 * snapshot took (the coder is dead, nothing writes it after the snapshot): no git process unless a
 * file holds a marker, then one for its base text from devflow's store.
 */
export async function markedSourceChanges(
  task: TaskCheckouts,
  changedSinceBase: readonly string[],
): Promise<MarkedSourceChange[]> {
  const marked: MarkedSourceChange[] = [];
  for (const path of changedSinceBase) {
    const now = sourceText(join(task.worktree, path));
    if (now === "too_large") marked.push({ path, now: null, base: null, tooLarge: MARKER_READ_CAP_BYTES });
    else if (now !== null && expectedFailureMarkers(now) > 0)
      marked.push({ path, now, base: await textInTree(task.worktree, task.baseCommit, path) });
  }
  return marked;
}

/** The text of a regular file (links followed, as a runner would), null when there is none. */
function sourceText(path: string): string | null | "too_large" {
  try {
    const stat = statSync(path);
    if (!stat.isFile()) return null;
    return stat.size > MARKER_READ_CAP_BYTES ? "too_large" : readFileSync(path, "utf8");
  } catch {
    return null;
  }
}
