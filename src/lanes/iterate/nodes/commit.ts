import { attemptId as toAttemptId } from "../../../artifacts/schemas/index.js";
import { taskDirLabel } from "../../../home/index.js";
import { commitBody } from "../../../verify/index.js";
import { commitAll, commitsSince } from "../../../workspace/index.js";
import type { NodeBody } from "../lane/define-node.js";
import { terminate } from "../lane/run-record.js";

/**
 * The orchestrator, not the coder, makes the commit that claims completion. The claim is the gate
 * verdict the gate node recorded for this attempt, read back unchanged: the message names what
 * passed and what was not checked, never a fixed list.
 */
export const commit: NodeBody = async (state, deps) => {
  const attemptId = toAttemptId(state.judgeAttempt);
  const run = await deps.store.read("iterator_run");
  const gate = run?.attempts.find((a) => a.attempt_id === attemptId)?.gate;
  if (gate?.result !== "pass") {
    throw new Error(`commit: iterator_run.json holds no passing gate verdict for ${attemptId}`);
  }
  const task = await deps.store.read("task_artifact");
  const title = task?.title ?? state.request;
  const sha = await commitAll(
    state.worktree,
    `devflow(${state.taskId}): ${title}\n\n${commitBody(gate)}\nArtifacts: ${taskDirLabel(state.taskId)}/`,
  );
  const commits = await commitsSince(state.worktree, state.baseCommit);
  const head = sha ?? commits.at(0)?.sha ?? null;
  const coderCommits = commits.filter((c) => c.sha !== sha);
  const kept = coderCommits.length ? ` (kept ${coderCommits.length} commit(s) the coder made)` : "";
  const unchecked = gate.caveats.length
    ? `; not checked: ${gate.caveats.map((c) => c.verifier).join(", ")}`
    : "";
  await terminate(deps.store, deps.gateway, {
    verdict: "completed",
    reason: `completion gate passed in attempt ${state.judgeAttempt}${kept}${unchecked}`,
    branch: state.branch,
    commit: head,
    gate,
  });
  return {
    line: `${state.branch} @ ${head?.slice(0, 10) ?? "(no new commit)"}${kept}`,
    runState: "completed",
    detail: { commit: head, coder_commits: coderCommits.map((c) => c.sha), caveats: gate.caveats },
  };
};
