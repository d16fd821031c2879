import { commitAll, commitsSince } from "../../../workspace/index.js";
import type { NodeBody } from "../lane/define-node.js";
import { terminate } from "../lane/run-record.js";

/** The orchestrator, not the coder, makes the commit that claims completion. */
export const commit: NodeBody = async (state, deps) => {
  const task = await deps.store.read("task_artifact");
  const title = task?.title ?? state.request;
  const sha = await commitAll(
    state.worktree,
    `devflow(${state.taskId}): ${title}\n\nVerified by devflow: seam, seam_integrity, regression, scope and critic passed.\nArtifacts: .devflow/iterate/${state.taskId}/`,
  );
  const commits = await commitsSince(state.worktree, state.baseCommit);
  const head = sha ?? commits.at(0)?.sha ?? null;
  const coderCommits = commits.filter((c) => c.sha !== sha);
  const kept = coderCommits.length ? ` (kept ${coderCommits.length} commit(s) the coder made)` : "";
  await terminate(deps.store, deps.gateway, {
    verdict: "completed",
    reason: `completion gate passed in attempt ${state.judgeAttempt}${kept}`,
    branch: state.branch,
    commit: head,
  });
  return {
    line: `${state.branch} @ ${head?.slice(0, 10) ?? "(no new commit)"}${kept}`,
    runState: "completed",
    detail: { commit: head, coder_commits: coderCommits.map((c) => c.sha) },
  };
};
