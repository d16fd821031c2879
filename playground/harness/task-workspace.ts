import {
  type ArtifactStore,
  createFixtureRepo,
  createTaskWorktree,
  ensureDevflowDir,
  openTaskStore,
  openVerifyCheckout,
  type TaskWorkspace,
} from "../../src/index.js";

export interface PreparedTask {
  repo: string;
  workspace: TaskWorkspace;
  store: ArtifactStore;
}

/**
 * A fresh fixture repo (temp dir, one commit) with the task's worktree and artifact directory,
 * laid out exactly as runIterate lays them out, for scenarios that run one node alone.
 */
export async function prepareTask(fixture: string, taskId: string): Promise<PreparedTask> {
  const repo = createFixtureRepo(fixture);
  ensureDevflowDir(repo);
  const workspace = await createTaskWorktree({ repoRoot: repo, taskId });
  // As runIterate does before any node: snapshots go to devflow's own repository (ADR 0024); the
  // coder's checkout has objects of its own (ADR 0025), so a snapshot must not land there.
  await openVerifyCheckout({
    repoRoot: repo,
    taskId,
    baseCommit: workspace.baseCommit,
    coderCheckout: workspace.worktree,
  });
  return { repo, workspace, store: openTaskStore(repo, taskId) };
}
