import { DevflowError } from "../errors/index.js";
import { runGit } from "./git.js";
import { isObjectId } from "./object-id.js";
import { TASK_BRANCH_PREFIX } from "./task-branch.js";

/**
 * The compose lane's integration branch (ADR 0055): `devflow/plan-<plan id>` holds exactly the
 * plan's verified tasks, one commit each, stacked in order on the plan's base. It is only ever
 * moved forward by one verified task commit whose sole parent is where the branch stands.
 */

export const planBranch = (planId: string): string => `${TASK_BRANCH_PREFIX}plan-${planId}`;

/** Where the branch stands, or null when it does not exist. */
export async function planBranchHead(repoRoot: string, branch: string): Promise<string | null> {
  try {
    return (
      await runGit(repoRoot, ["rev-parse", "--verify", "--quiet", `refs/heads/${branch}^{commit}`])
    ).trim();
  } catch {
    return null;
  }
}

/** The parents of a commit (empty for a root commit). */
async function parentsOf(repoRoot: string, commit: string): Promise<string[]> {
  const line = (await runGit(repoRoot, ["rev-list", "--parents", "-n", "1", commit])).trim();
  return line.split(/\s+/).slice(1);
}

/**
 * Lands one verified task commit on the integration branch: the commit's only parent must be
 * `onto` (the previous landed task's commit, or the plan's base for the first task), and the branch
 * must stand at `onto` (or not exist yet, for the first task), so the branch never holds anything
 * but the verified tasks, in order. Idempotent: a branch already at `commit` (a crash after the
 * move, before plan_run.json recorded it) is accepted.
 */
export async function landOnPlanBranch(
  repoRoot: string,
  branch: string,
  landing: { commit: string; onto: string; first: boolean },
): Promise<void> {
  const { commit, onto } = landing;
  if (!isObjectId(commit) || !isObjectId(onto))
    throw new DevflowError(
      "BAD_REVISION",
      `invalid commit ${JSON.stringify(commit)} or ${JSON.stringify(onto)}`,
    );
  const head = await planBranchHead(repoRoot, branch);
  if (head === commit) return;
  const parents = await parentsOf(repoRoot, commit);
  if (parents.length !== 1 || parents[0] !== onto)
    throw new DevflowError(
      "PLAN_BRANCH_REFUSED",
      `refusing to land ${commit.slice(0, 12)} on ${branch}: it is not one commit on top of ${onto.slice(0, 12)} (parents: ${parents.map((p) => p.slice(0, 12)).join(", ") || "none"}), so the branch would hold more than the verified tasks`,
    );
  if (head === null ? !landing.first : head !== onto)
    throw new DevflowError(
      "PLAN_BRANCH_REFUSED",
      `refusing to move ${branch}: it stands at ${head ? head.slice(0, 12) : "nothing"}, not at ${onto.slice(0, 12)}, the last verified task (was it moved by hand?)`,
    );
  // Compare-and-swap: "" as the old value means "must not exist yet".
  await runGit(repoRoot, [
    "update-ref",
    "-m",
    "devflow: plan task landed",
    `refs/heads/${branch}`,
    commit,
    head ?? "",
  ]);
}

/** The whole plan's change: `git diff <base> <final>` (what the plan review reads). */
export const planDiff = (repoRoot: string, base: string, final: string): Promise<string> =>
  runGit(repoRoot, ["diff", "--no-ext-diff", "--no-textconv", base, final]);
