import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import type { ConversationTurn } from "../../artifacts/schemas/index.js";

/**
 * How many earlier turns a lane sees. A long conversation must not grow every prompt without
 * bound; the most recent turns carry the context a new message refers to.
 */
export const MAX_PRIOR_TURNS = 20;

/** Prior turns as prompt text, one `role: content` paragraph each ("" when there are none). */
export function renderTurns(turns: ConversationTurn[]): string {
  return turns
    .slice(-MAX_PRIOR_TURNS)
    .map((t) => `${t.role}: ${t.content}`)
    .join("\n");
}

/** The conversation's messages as turns (tool or system messages never reach a chat thread). */
export function toTurns(messages: BaseMessage[]): ConversationTurn[] {
  return messages.flatMap((m): ConversationTurn[] => {
    const content = typeof m.content === "string" ? m.content : JSON.stringify(m.content);
    if (HumanMessage.isInstance(m)) return [{ role: "user", content }];
    if (AIMessage.isInstance(m)) return [{ role: "assistant", content }];
    return [];
  });
}

export const userTurn = (content: string) => new HumanMessage(content);
export const assistantTurn = (content: string) => new AIMessage(content);
