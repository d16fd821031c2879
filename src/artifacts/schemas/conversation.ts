import { z } from "zod";

/** One turn of a chat conversation, as the lanes see it (prior turns give a request its context). */
export const ConversationTurn = z.object({ role: z.enum(["user", "assistant"]), content: z.string() });
export type ConversationTurn = z.infer<typeof ConversationTurn>;

/** Where a lane's work came from when the iterate lane handed it over (promotion_handoff.json). */
export const HandoffSource = z.object({
  task_id: z.string().min(1),
  path: z.string().min(1).describe("promotion_handoff.json, relative to the repository root"),
});
export type HandoffSource = z.infer<typeof HandoffSource>;
