import { askIdeaPlan } from "../../agents/idea/idea.js";
import type { Turn } from "../../agents/router/router.js";
import type { HandoffSource, IdeaBrief } from "../../artifacts/schemas/index.js";
import { DevflowError } from "../../errors/index.js";
import type { ModelGateway } from "../../models/contract.js";
import { nowIso } from "../../util/time.js";
import { assertGitRepo } from "../../workspace/index.js";
import { claimRecordId, writeRecord } from "./lane-records.js";

/**
 * The idea lane: a planning brief for a request too broad for the iterate lane (the idea agent,
 * src/agents/idea), written to `.devflow/idea/<id>/idea_brief.json`.
 */
export async function runIdea(input: {
  gateway: ModelGateway;
  repoRoot: string;
  request: string;
  priorTurns: Turn[];
  /** Set when the iterate lane promoted the request here. */
  handoff?: HandoffSource;
}): Promise<{ id: string; brief: IdeaBrief; artifactPath: string }> {
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
  return { id, brief, artifactPath };
}
