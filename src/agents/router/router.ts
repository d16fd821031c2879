import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import { z } from "zod";
import type { ConversationTurn as Turn } from "../../artifacts/schemas/index.js";
import type { ModelGateway } from "../../models/contract.js";
import { renderTurns } from "../../util/prior-turns.js";
import { loadPrompt } from "../../util/prompts.js";

export const Route = z.enum(["idea", "insight", "iterate", "neither"]);
export type Route = z.infer<typeof Route>;

export const RouteDecision = z.object({
  route: Route,
  rationale: z.string().min(1),
  confidence: z.number().min(0).max(1),
});
export type RouteDecision = z.infer<typeof RouteDecision>;

export type { Turn };

/**
 * The intake router (seeds/03 "Route into Iterate when" / "Route away from Iterate when"): one
 * structured call that reads the new message and the prior turns. The model classifies; nothing
 * else decides a lane from free text.
 */
export async function routeMessage(input: {
  gateway: ModelGateway;
  message: string;
  priorTurns: Turn[];
}): Promise<RouteDecision> {
  const turns = renderTurns(input.priorTurns);
  return input.gateway.structured({
    role: "router",
    name: "route_decision",
    description: "Which devflow lane handles the new message, why, and how sure you are",
    schema: RouteDecision,
    messages: [
      new SystemMessage(loadPrompt("router")),
      new HumanMessage(
        [turns && `## Prior turns\n${turns}`, `## New message\n${input.message.trim()}`]
          .filter(Boolean)
          .join("\n\n"),
      ),
    ],
  });
}
