import type { ArtifactStore } from "../../src/artifacts/store.js";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { ensureDevflowDir, openTaskStore } from "../../src/home/index.js";
import { createTaskWorktree, type TaskWorkspace } from "../../src/workspace/index.js";

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
