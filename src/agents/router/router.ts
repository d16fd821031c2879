import { z } from "zod";
import type { ConversationTurn as Turn } from "../../artifacts/schemas/index.js";
import type { ModelGateway } from "../../models/contract.js";
import { loadPrompt } from "../../util/prompts.js";
// Not the kit's index: that loads the tool-agent loop (langgraph, langchain, the tools), which the
// router never runs; `devflow route` starts faster without it (ADR 0042).
import { askStructured } from "../kit/ask-structured.js";
import { renderTurns } from "../kit/render-turns.js";

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
 * The intake router (docs/origins.md#03-routing: into iterate / away from iterate): one
 * structured call that reads the new message and the prior turns. The model classifies; nothing
 * else decides a lane from free text.
 */
export async function routeMessage(input: {
  gateway: ModelGateway;
  message: string;
  priorTurns: Turn[];
}): Promise<RouteDecision> {
  const turns = renderTurns(input.priorTurns);
  return askStructured({
    gateway: input.gateway,
    role: "router",
    name: "route_decision",
    description: "Which devflow lane handles the new message, why, and how sure you are",
    schema: RouteDecision,
    system: loadPrompt("router"),
    input: [turns && `## Prior turns\n${turns}`, `## New message\n${input.message.trim()}`]
      .filter(Boolean)
      .join("\n\n"),
  });
}
