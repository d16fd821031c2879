import { type InsightStop, runInsightAgent } from "../../agents/insight/insight-agent.js";
import { checkReferences } from "../../agents/insight/insight-references.js";
import type { ConversationTurn, HandoffSource } from "../../artifacts/schemas/index.js";
import { DevflowError } from "../../errors/index.js";
import { claimRecordId, writeRecord } from "../../home/index.js";
import type { ModelGateway } from "../../models/contract.js";
import { nowIso } from "../../util/time.js";
import { assertGitRepo, headCommit } from "../../workspace/index.js";
import type { InsightOutcome } from "../outcome.js";

export interface InsightInput {
  gateway: ModelGateway;
  repoRoot: string;
  question: string;
  priorTurns: ConversationTurn[];
  signal?: AbortSignal;
  /** Set when the iterate lane rerouted the request here. */
  handoff?: HandoffSource;
}

const STOPPED: Record<InsightStop, string> = {
  model_call_limit: "its budget of model calls ran out",
  step_limit: "it kept looping without answering",
  no_answer: "the model ended without giving its answer",
};

/**
 * The insight lane runner: a read-only investigation of the repository that answers with file and line
 * references and records the answer under `.devflow/insight/<id>/insight_answer.json`. Nothing in
 * the working tree, the index or the refs is touched (the tools cannot write).
 */
export async function runInsight(input: InsightInput): Promise<InsightOutcome> {
  const question = input.question.trim();
  if (!question)
    throw new DevflowError("REQUEST_EMPTY", "the question is empty: ask what you want explained");
  const repoRoot = await assertGitRepo(input.repoRoot);
  const head = await headCommit(repoRoot);
  const run = await runInsightAgent({
    gateway: input.gateway,
    repoRoot,
    question,
    priorTurns: input.priorTurns,
    ...(input.signal ? { signal: input.signal } : {}),
  });
  const { references, unverified } = await checkReferences(repoRoot, run.findings?.references ?? []);
  const answer =
    run.findings?.answer ??
    `The investigation stopped before reaching an answer: ${STOPPED[run.stoppedBy ?? "no_answer"]} after ${run.toolCalls} tool call(s). Ask a narrower question, e.g. name the file or function to look at.`;

  const id = claimRecordId(repoRoot, "insight", question);
  const artifactPath = await writeRecord(repoRoot, "insight", {
    artifact: "insight_answer",
    id,
    question,
    prior_turns: input.priorTurns,
    answer,
    references,
    unverified_references: unverified,
    head_commit: head,
    source_handoff: input.handoff ?? null,
    stopped_by: run.stoppedBy,
    model: input.gateway.modelName("insight"),
    tool_calls: run.toolCalls,
    created_at: nowIso(),
  });
  return { kind: "finished", lane: "insight", result: { id, answer, references, artifactPath } };
}
