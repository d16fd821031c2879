import { askIdeaPlan } from "../../agents/idea/idea.js";
import type { ConversationTurn, HandoffSource, IdeaBrief } from "../../artifacts/schemas/index.js";
import { DevflowError } from "../../errors/index.js";
import { claimRecordId, writeRecord } from "../../home/index.js";
import type { ModelGateway } from "../../models/contract.js";
import { nowIso } from "../../util/time.js";
import { assertGitRepo } from "../../workspace/index.js";
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
 * The idea lane runner: the idea planner (src/agents/idea) plans the request, and the lane writes
 * the planning brief to `.devflow/idea/<id>/idea_brief.json` and finishes with it.
 */
export async function runIdea(input: IdeaInput): Promise<IdeaOutcome> {
  const request = input.request.trim();
  if (!request) throw new DevflowError("REQUEST_EMPTY", "the request is empty: describe the feature to plan");
  const repoRoot = await assertGitRepo(input.repoRoot);
  const plan = await askIdeaPlan({ gateway: input.gateway, repoRoot, request, priorTurns: input.priorTurns });
  const id = claimRecordId(repoRoot, "idea", plan.title || request);
  const brief: IdeaBrief = {
    artifact: "idea_brief",
    id,
    request,
    prior_turns: input.priorTurns,
    ...plan,
    source_handoff: input.handoff ?? null,
    model: input.gateway.modelName("idea"),
    created_at: nowIso(),
  };
  const artifactPath = await writeRecord(repoRoot, "idea", brief);
  return { kind: "finished", lane: "idea", result: { id, brief, artifactPath } };
}
