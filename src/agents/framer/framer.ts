import { TaskFraming } from "../../artifacts/schemas/index.js";
import type { ModelGateway } from "../../models/contract.js";
import { loadPrompt } from "../../util/prompts.js";
import { askStructured } from "../kit/index.js";

export interface FramerInput {
  gateway: ModelGateway;
  request: string;
  /** The conversation before the request, every turn (the framer sees them all). */
  priorTurns: readonly { role: string; content: string }[];
  /** The user's answers to earlier questions, in order (re-framing). */
  answers: readonly string[];
  /** The rendered repository map. */
  repoMap: string;
}

/**
 * The Framer: one structured call that turns a request (plus prior turns, answers to earlier
 * questions and the repository map) into the bounded task framing. The frame node turns it into
 * the next revision of task_artifact.json.
 */
export function frameTask(input: FramerInput): Promise<TaskFraming> {
  const turns = input.priorTurns.map((t) => `${t.role}: ${t.content}`).join("\n");
  const answers = input.answers.map((a, i) => `${i + 1}. ${a}`).join("\n");
  return askStructured({
    gateway: input.gateway,
    role: "framer",
    name: "task_framing",
    description: "The bounded task artifact for this request",
    schema: TaskFraming,
    system: loadPrompt("framer"),
    input: [
      `## Request\n${input.request}`,
      turns && `## Prior turns\n${turns}`,
      answers && `## Answers to earlier questions\n${answers}`,
      `## Repository map\n${input.repoMap}`,
    ]
      .filter(Boolean)
      .join("\n\n"),
  });
}
