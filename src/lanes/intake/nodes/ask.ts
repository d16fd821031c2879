import { Command, interrupt } from "@langchain/langgraph";
import { z } from "zod";
import type { IntakeStateValue } from "../state.js";
import { userTurn } from "../turns.js";

/** What the intake graph pauses with while the iterate lane waits for answers. */
export const IntakeQuestions = z.object({
  kind: z.literal("iterate_questions"),
  task_id: z.string(),
  questions: z.array(z.string()),
});
export type IntakeQuestions = z.infer<typeof IntakeQuestions>;

/**
 * The iterate lane asked questions: the conversation pauses here (LangGraph interrupt, so the pause
 * survives a restart) until the user's next message, which resumes the same task. Nothing runs
 * before interrupt(), because the node re-runs from its first line on resume.
 */
export async function askNode(state: IntakeStateValue): Promise<Command> {
  const pending = state.pending;
  if (!pending) throw new Error("ask: no pending questions in the conversation state");
  const answer = interrupt<IntakeQuestions, string>({
    kind: "iterate_questions",
    task_id: pending.task_id,
    questions: pending.questions,
  });
  return new Command({
    update: {
      messages: [userTurn(answer)],
      pending: null,
      resume: { task_id: pending.task_id, answer },
    },
    goto: "iterate",
  });
}
