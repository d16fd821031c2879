import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import type { ConversationTurn as Turn } from "../../artifacts/schemas/index.js";
import type { ModelGateway } from "../../models/contract.js";
import { loadPrompt } from "../../util/prompts.js";
import { renderTurns } from "../kit/index.js";

/** What devflow can do, shown after a `neither` reply and by the chat's /help. */
export function capabilitiesHelp(): string {
  return loadPrompt("neither", "help.md").trim();
}

/**
 * The `neither` lane: a short conversational reply (one plain chat call, role `neither`) followed
 * by the help on what devflow can do. No tools, no artifacts.
 */
export async function runNeither(input: {
  gateway: ModelGateway;
  message: string;
  priorTurns: Turn[];
}): Promise<{ reply: string }> {
  const turns = renderTurns(input.priorTurns);
  const answer = await input.gateway
    .chatModel("neither")
    .invoke([
      new SystemMessage(loadPrompt("neither")),
      new HumanMessage(
        [turns && `## Prior turns\n${turns}`, `## Message\n${input.message.trim()}`]
          .filter(Boolean)
          .join("\n\n"),
      ),
    ]);
  const text = typeof answer.content === "string" ? answer.content : answer.text;
  return { reply: `${text.trim()}\n\n${capabilitiesHelp()}`.trim() };
}
