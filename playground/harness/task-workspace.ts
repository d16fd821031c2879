import {
  type ArtifactStore,
  createFixtureRepo,
  createTaskWorktree,
  ensureDevflowDir,
  openTaskStore,
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
  return { repo, workspace, store: openTaskStore(repo, taskId) };
}
