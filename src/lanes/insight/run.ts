import type { ConversationTurn, HandoffSource } from "../../artifacts/schemas/index.js";
import { claimRecordId, writeRecord } from "../../home/index.js";
import type { ModelGateway } from "../../models/contract.js";
import { nowIso } from "../../util/time.js";
import type { InsightOutcome } from "../outcome.js";
import { investigate } from "./investigate.js";

export interface InsightInput {
  gateway: ModelGateway;
  repoRoot: string;
  question: string;
  priorTurns: ConversationTurn[];
  signal?: AbortSignal;
  /** Set when the iterate lane rerouted the request here. */
  handoff?: HandoffSource;
}

/**
 * The insight lane runner: a read-only investigation of the repository that answers with file and line
 * references and records the answer under `.devflow/insight/<id>/insight_answer.json`. Nothing in
 * the working tree, the index or the refs is touched (the tools cannot write).
 */
export async function runInsight(input: InsightInput): Promise<InsightOutcome> {
  const found = await investigate({
    gateway: input.gateway,
    repoRoot: input.repoRoot,
    question: input.question,
    priorTurns: input.priorTurns,
    ...(input.signal ? { signal: input.signal } : {}),
  });
  const repoRoot = found.repoRoot as string;
  const id = claimRecordId(repoRoot, "insight", found.question);
  const artifactPath = await writeRecord(repoRoot, "insight", {
    artifact: "insight_answer",
    id,
    question: found.question,
    prior_turns: input.priorTurns,
    answer: found.answer,
    references: found.references,
    unverified_references: found.unverified,
    head_commit: found.headCommit,
    source_handoff: input.handoff ?? null,
    stopped_by: found.stoppedBy,
    model: found.model,
    tool_calls: found.toolCalls,
    created_at: nowIso(),
  });
  return {
    kind: "finished",
    lane: "insight",
    result: { id, answer: found.answer, references: found.references, artifactPath },
  };
}
