import { frameTask } from "../../../agents/framer/framer.js";
import { killPoint } from "../../../util/test-kill-point.js";
import { nowIso } from "../../../util/time.js";
import { repoMap } from "../../../workspace/index.js";
import type { NodeBody } from "../lane/define-node.js";
import { transition } from "../lane/run-record.js";
import { confirmationMarkdown } from "../markdown.js";

/** Frame: the Framer's answer (src/agents/framer) → task_artifact, next revision of the same task. */
export const frame: NodeBody = async (state, deps) => {
  await transition(
    deps.store,
    "framing",
    state.answers.length ? "re-framing with the user's answers" : "framing the request",
  );
  const framing = await frameTask({
    gateway: deps.gateway,
    request: state.request,
    priorTurns: state.priorTurns,
    answers: state.answers,
    repoMap: await repoMap(state.worktree, { maxFiles: 300 }),
  });

  const previous = await deps.store.read("task_artifact");
  const now = nowIso();
  const task = await deps.store.write(
    "task_artifact",
    {
      ...framing,
      artifact: "task_artifact",
      task_id: state.taskId,
      request: state.request,
      prior_turns: [
        ...state.priorTurns,
        ...state.answers.map((a) => ({ role: "user" as const, content: a })),
      ],
      ...(state.extraVerifiers.length > 0 ? { extra_verifiers: state.extraVerifiers } : {}),
      created_at: previous?.created_at ?? now,
      updated_at: now,
    },
    { expectedRevision: previous?.revision ?? 0 },
  );
  killPoint("frame.task-written");
  await deps.store.writeText("confirmation.md", confirmationMarkdown(task));

  const goto = framing.recommended_next_step === "needs_more_context" ? "ask" : "observe";
  return {
    goto,
    line: `task_artifact r${task.revision} (${task.task_type})`,
    runState: "framing",
    detail: { revision: task.revision, next: framing.recommended_next_step },
  };
};
