import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import { TaskFraming } from "../../../artifacts/schemas/index.js";
import { loadPrompt } from "../../../util/prompts.js";
import { nowIso } from "../../../util/time.js";
import { repoMap } from "../../../workspace/index.js";
import type { NodeBody } from "../lane/define-node.js";
import { transition } from "../lane/run-record.js";
import { confirmationMarkdown } from "../markdown.js";

/** Framer: request (+ prior turns, answers, repo map) → task_artifact, next revision of the same task. */
export const frame: NodeBody = async (state, deps) => {
  await transition(
    deps.store,
    "framing",
    state.answers.length ? "re-framing with the user's answers" : "framing the request",
  );
  const map = await repoMap(state.worktree, { maxFiles: 300 });
  const turns = state.priorTurns.map((t) => `${t.role}: ${t.content}`).join("\n");
  const answers = state.answers.map((a, i) => `${i + 1}. ${a}`).join("\n");
  const framing = await deps.gateway.structured({
    role: "framer",
    name: "task_framing",
    description: "The bounded task artifact for this request",
    schema: TaskFraming,
    messages: [
      new SystemMessage(loadPrompt("framer")),
      new HumanMessage(
        [
          `## Request\n${state.request}`,
          turns && `## Prior turns\n${turns}`,
          answers && `## Answers to earlier questions\n${answers}`,
          `## Repository map\n${map}`,
        ]
          .filter(Boolean)
          .join("\n\n"),
      ),
    ],
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
      created_at: previous?.created_at ?? now,
      updated_at: now,
    },
    { expectedRevision: previous?.revision ?? 0 },
  );
  await deps.store.writeText("confirmation.md", confirmationMarkdown(task));

  const goto = framing.recommended_next_step === "needs_more_context" ? "ask" : "observe";
  return {
    goto,
    line: `task_artifact r${task.revision} (${task.task_type})`,
    runState: "framing",
    detail: { revision: task.revision, next: framing.recommended_next_step },
  };
};
