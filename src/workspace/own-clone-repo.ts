import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { DevflowError } from "../errors/index.js";
import { runGit } from "./git.js";
import { isObjectId } from "./object-id.js";

/**
 * Makes `worktree/.git` a new repository of devflow's own (ADR 0025): `init` without a template (no
 * sample hooks, no `info/exclude`), on `branch` from the start, the user's objects as alternates,
 * and the branch at `baseCommit`. Used by a fresh coder checkout and by a reused one
 * (coder-checkout-reuse.ts), which both then write the base tree into the work tree.
 *
 * One git process: the branch is named by `init --initial-branch` and its ref written here, as
 * `update-ref` would in a repository with no refs yet (a loose ref; this git dir is seconds old
 * and devflow's), instead of `symbolic-ref` + `update-ref` (two processes, ~35 ms; issue 11).
 */
export async function initOwnCloneRepo(
  worktree: string,
  userObjects: string,
  branch: string,
  baseCommit: string,
): Promise<void> {
  if (!isObjectId(baseCommit))
    throw new DevflowError(
      "BAD_REVISION",
      `invalid base commit ${JSON.stringify(baseCommit)}: pass a commit sha`,
    );
  await runGit(worktree, ["init", "-q", "--template=", `--initial-branch=${branch}`, worktree]);
  const gitDir = join(worktree, ".git");
  mkdirSync(join(gitDir, "objects", "info"), { recursive: true });
  writeFileSync(join(gitDir, "objects", "info", "alternates"), `${userObjects}\n`);
  const ref = join(gitDir, "refs", "heads", ...branch.split("/"));
  mkdirSync(dirname(ref), { recursive: true });
  // `wx`: the git dir is new, so nothing may be there already.
  writeFileSync(ref, `${baseCommit}\n`, { flag: "wx" });
}
