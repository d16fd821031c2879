import {
  createMiddleware,
  HumanMessage,
  MultipleStructuredOutputsError,
  StructuredOutputParsingError,
} from "langchain";
import { type Role, structuredOutputError } from "../models/contract.js";

export interface AnswerRepairOptions {
  role: Role;
  /** Name of the structured-answer tool (for error messages). */
  answerTool: string;
  /** The message that tells the model what was wrong with its answer (from the agent's prompts). */
  feedback: (problems: string) => string;
  /** Repair rounds before giving up (default 1). */
  maxRepairs?: number;
}

/**
 * One repair round for an invalid structured answer, inside the same model step.
 *
 * createAgent's own repair (toolStrategy's default handleError) answers with a Command that jumps
 * back to the model node; with afterModel middleware present (the call and tool limits) that
 * forks the graph and fails with "Invalid update for channel ..." (langchain-ai/deepagentsjs#480).
 * So the agent uses toolStrategy(..., { handleError: false }), which throws instead, and this
 * middleware catches the error, shows the model the problems and asks again. It must be the last
 * (innermost) middleware so it sees langchain's own error class, not a MiddlewareError wrapper.
 */
export function answerRepairMiddleware(options: AnswerRepairOptions) {
  const maxRepairs = options.maxRepairs ?? 1;
  return createMiddleware({
    name: "AnswerRepairMiddleware",
    wrapModelCall: async (request, handler) => {
      let messages = request.messages;
      for (let round = 0; ; round++) {
        try {
          return await handler({ ...request, messages });
        } catch (error) {
          const problems = describeAnswerError(error);
          if (problems === null) throw error;
          if (round >= maxRepairs) {
            throw structuredOutputError(
              options.role,
              `the ${options.role} gave an invalid ${options.answerTool} answer ${round + 1} times; last problems: ${problems}`,
            );
          }
          messages = [...request.messages, new HumanMessage(options.feedback(problems))];
        }
      }
    },
  });
}

function describeAnswerError(error: unknown): string | null {
  if (error instanceof StructuredOutputParsingError) return error.errors.join("; ");
  if (error instanceof MultipleStructuredOutputsError) {
    return `the answer tool was called ${error.toolNames.length} times in one turn (${error.toolNames.join(", ")}); call it exactly once`;
  }
  return null;
}
