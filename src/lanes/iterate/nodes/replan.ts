import { interrupt } from "@langchain/langgraph";
import type { NodeBody } from "../lane/define-node.js";
import { terminate, transition } from "../lane/run-record.js";
import type { QuestionsInterrupt } from "./ask.js";

/** docs/origins.md#02-fairpeer-compose: at most this many re-plans, each needing the user's approval. */
export const MAX_REPLANS = 2;

/**
 * The critic judged the task's assumptions wrong (plan_invalid). Interactive runs ask the user to
 * approve a re-frame with what they add; an empty answer declines and the run stops blocked.
 * Nothing with side effects runs before interrupt(): the node re-runs from its start on resume.
 */
export const replan: NodeBody = async (state, deps) => {
  const run = await deps.store.read("iterator_run");
  const last = run?.attempts.at(-1);
  const question = `The critic judged the task's assumptions wrong after ${last?.attempt_id ?? "the last attempt"}: ${last?.summary ?? ""}. Re-frame the task? Answer with the missing facts to re-frame, or leave empty to stop.`;
  const answer = interrupt<QuestionsInterrupt, string>({
    kind: "replan",
    taskId: state.taskId,
    questions: [question],
  });
  if (!answer.trim()) {
    const reason = "the plan was judged invalid and the user declined to re-frame it";
    await terminate(deps.store, deps.gateway, { verdict: "blocked", reason, branch: state.branch });
    return { goto: "__end__", line: "re-plan declined", ok: false, runState: "blocked" };
  }
  await transition(deps.store, "framing", `re-plan ${state.replans + 1} of ${MAX_REPLANS} approved`);
  return {
    goto: "frame",
    update: { answers: [...state.answers, answer], replans: state.replans + 1 },
    line: `re-plan ${state.replans + 1}/${MAX_REPLANS} approved; re-framing`,
  };
};
