import { interrupt } from "@langchain/langgraph";
import type { NodeBody } from "../lane/define-node.js";
import { terminate, transition } from "../lane/run-record.js";

export interface QuestionsInterrupt {
  kind: "needs_more_context" | "replan";
  taskId: string;
  questions: string[];
}

/**
 * needs_more_context: interactive runs pause (LangGraph interrupt) and the answer re-frames the
 * task; non-interactive runs stop with the questions (exit 3). Nothing with side effects runs
 * before interrupt(), because the node re-runs from its first line on resume.
 */
export const ask: NodeBody = async (state, deps) => {
  const task = await deps.store.read("task_artifact");
  const observation = await deps.store.read("observation_artifact");
  const questions = [...(observation?.questions ?? []), ...(task?.blocking_unknowns ?? [])].filter(
    (q, i, all) => q.trim() && all.indexOf(q) === i,
  );
  if (questions.length === 0) questions.push("What else should devflow know to reproduce and fix this?");

  if (!deps.options.interactive) {
    await terminate(deps.store, deps.gateway, {
      verdict: "needs_more_context",
      reason: "the request cannot be implemented safely without answers",
      questions,
    });
    return {
      goto: "__end__",
      line: `${questions.length} question(s)`,
      ok: false,
      runState: "needs_more_context",
    };
  }
  const answer = interrupt<QuestionsInterrupt, string>({
    kind: "needs_more_context",
    taskId: state.taskId,
    questions,
  });
  await transition(deps.store, "framing", "the user answered; re-framing");
  return {
    goto: "frame",
    update: { answers: [...state.answers, answer] },
    line: "answer received; re-framing",
  };
};
