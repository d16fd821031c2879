import { CoderReport, attemptId as toAttemptId } from "../../../artifacts/schemas/index.js";
import { isDevflowError } from "../../../errors/index.js";
import { taskDirLabel } from "../../../home/index.js";
import { killPoint } from "../../../util/test-kill-point.js";
import { commitBody } from "../../../verify/index.js";
import {
  checkGitLink,
  commitOnTaskBranch,
  commitsSince,
  diffTrees,
  snapshotTree,
} from "../../../workspace/index.js";
import { commitHookRefusal } from "../lane/commit-hooks.js";
import type { NodeBody } from "../lane/define-node.js";
import { terminate } from "../lane/run-record.js";
import { salvageNote } from "../salvage.js";

/**
 * The orchestrator, not the coder, makes the commit that claims completion, in the user's
 * repository (ADR 0025). The claim is the gate
 * verdict the gate node handed over in state for this attempt, unchanged: the message names what
 * passed and what was not checked, never a fixed list. The commit goes on
 * `refs/heads/devflow/<task_id>` only, by compare-and-swap from the commit the gate accepted; a
 * branch moved since is refused (ADR 0018).
 */
export const commit: NodeBody = async (state, deps) => {
  const attemptId = toAttemptId(state.judgeAttempt);
  const gate = state.gateVerdict;
  if (gate?.result !== "pass" || gate.attempt_id !== attemptId) {
    throw new Error(`commit: the lane state holds no passing gate verdict for ${attemptId}`);
  }
  const task = await deps.store.read("task_artifact");
  const title = task?.title ?? state.request;
  // The user's task branch, where devflow left it; the coder's commits stay in its own checkout (ADR 0025).
  const expected = state.taskRefHead ?? state.baseCommit;
  const relinked = checkGitLink(state.worktree);
  if (relinked.length) {
    const reason = `tamper: ${relinked.join("; ")}`;
    await terminate(deps.store, deps.gateway, { verdict: "blocked", reason, branch: state.branch });
    return { line: `${state.branch}: checkout relinked; not committed`, ok: false, runState: "blocked" };
  }
  // Commit exactly the tree the verifiers judged (taken right after the coder ran), never the live
  // worktree: a process may have changed it since. If it did, that is tampering (ADR 0023).
  const verified = state.attemptTree;
  if (!verified) throw new Error(`commit: the lane state holds no verified tree for ${attemptId}`);
  const now = await snapshotTree(state.worktree);
  if (now !== verified) {
    const changed = (await diffTrees(state.worktree, verified, now)).files;
    const reason = `tamper: the worktree changed after ${attemptId} was verified (${changed.join(", ") || "tree differs"}); the unverified change is not committed`;
    await terminate(deps.store, deps.gateway, { verdict: "blocked", reason, branch: state.branch });
    return { line: reason, ok: false, runState: "blocked", detail: { tamper: changed } };
  }
  // Not a gate caveat (every check ran on the change): a recorded fact about the coder (ADR 0026).
  const report = await deps.store.readAttemptJson(attemptId, "coder_report.json", CoderReport);
  const salvaged = report ? salvageNote(report) : null;
  // The last moment a stop can still prevent the commit: after Ctrl-C or SIGTERM nothing moves the
  // user's branch (ADR 0043); the node re-runs on --resume.
  if (deps.signal?.aborted) throw new Error(`commit: the run was stopped before ${attemptId} was committed`);
  const message = `devflow(${state.taskId}): ${title}\n\n${commitBody(gate)}\n${salvaged ? `Coder: ${salvaged}.\n` : ""}Artifacts: ${taskDirLabel(state.taskId)}/`;
  // The user's own config can have their pre-commit/commit-msg hooks check the commit (ADR 0047).
  const hookRefusal = deps.options.commitHooks
    ? await commitHookRefusal(state, deps, verified, message, deps.store.attemptDir(attemptId))
    : null;
  if (hookRefusal) {
    await terminate(deps.store, deps.gateway, {
      verdict: "blocked",
      reason: hookRefusal,
      branch: state.branch,
    });
    return { line: hookRefusal, ok: false, runState: "blocked" };
  }
  let sha: string | null;
  try {
    sha = await commitOnTaskBranch({
      ...(deps.options.commitAuthor ? { author: deps.options.commitAuthor } : {}),
      repoRoot: state.repoRoot,
      worktree: state.worktree,
      taskId: state.taskId,
      expectedHead: expected,
      tree: verified,
      message,
    });
  } catch (error) {
    // COMMIT_REFUSED: the verified objects failed the integrity check on their way into the user's repository.
    const reason =
      isDevflowError(error) && error.code === "COMMIT_REFUSED"
        ? `tamper: ${error.message}`
        : `tamper: the task branch changed after the gate passed ${attemptId}: ${error instanceof Error ? error.message : String(error)}`;
    await terminate(deps.store, deps.gateway, { verdict: "blocked", reason, branch: state.branch });
    return { line: `${state.branch} moved; not committed`, ok: false, runState: "blocked" };
  }
  killPoint("commit.ref-moved");
  // The coder's own commits (in its checkout) are reported, not kept: the verified tree is the result.
  // The code node read them with the branch head the gate has just found unchanged (issue 11: one
  // `git log` less); a checkpoint from before that reading asks git as before.
  const coderCommits =
    state.coderCommits ??
    (await commitsSince(state.worktree, state.baseCommit).catch(() => [])).map((c) => c.sha);
  const head = sha ?? (expected === state.baseCommit ? null : expected);
  const kept = coderCommits.length
    ? ` (the coder's ${coderCommits.length} own commit(s) are folded into devflow's commit of the verified tree)`
    : "";
  const unchecked = gate.caveats.length
    ? `; not checked: ${gate.caveats.map((c) => c.verifier).join(", ")}`
    : "";
  await terminate(deps.store, deps.gateway, {
    verdict: "completed",
    reason: `completion gate passed in attempt ${state.judgeAttempt}${kept}${unchecked}${salvaged ? `; ${salvaged}` : ""}`,
    branch: state.branch,
    commit: head,
    gate,
  });
  return {
    line: `${state.branch} @ ${head?.slice(0, 10) ?? "(no new commit)"}${kept}`,
    runState: "completed",
    detail: { commit: head, coder_commits: coderCommits, caveats: gate.caveats },
  };
};
