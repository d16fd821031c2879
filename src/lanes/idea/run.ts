import { runIdea as planIdea } from "../../agents/idea/idea.js";
import type { ConversationTurn, HandoffSource } from "../../artifacts/schemas/index.js";
import type { ModelGateway } from "../../models/contract.js";
import type { IdeaOutcome } from "../outcome.js";

export interface IdeaInput {
  gateway: ModelGateway;
  repoRoot: string;
  request: string;
  priorTurns: ConversationTurn[];
  /** Set when the iterate lane promoted the request here. */
  handoff?: HandoffSource;
}

/**
 * The idea lane runner: the idea planner (src/agents/idea) writes a planning brief to
 * `.devflow/idea/<id>/idea_brief.json`; the lane finishes with it.
 */
export async function runIdea(input: IdeaInput): Promise<IdeaOutcome> {
  const result = await planIdea(input);
  return { kind: "finished", lane: "idea", result };
}
