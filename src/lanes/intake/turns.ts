import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import type { ConversationTurn } from "../../artifacts/schemas/index.js";

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
