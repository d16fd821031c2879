import { type InsightStop, runInsightAgent } from "../../agents/insight/insight-agent.js";
import { checkReferences } from "../../agents/insight/insight-references.js";
import type { ConversationTurn, InsightReference } from "../../artifacts/schemas/index.js";
import { DevflowError } from "../../errors/index.js";
import type { ModelGateway } from "../../models/contract.js";
import { assertGitRepo, headCommit } from "../../workspace/index.js";

export interface InvestigateInput {
  gateway: ModelGateway;
  /** The repository to read; null: none (a question ticket), the tools then see `emptyDir` only. */
  repoRoot: string | null;
  /** Where the tools look when there is no repository: an empty folder the caller owns. */
  emptyDir?: string;
  question: string;
  priorTurns: ConversationTurn[];
  signal?: AbortSignal;
}

/** What a read-only investigation found, before anyone records it. */
export interface Investigation {
  question: string;
  /** The agent's answer, or a sentence saying why it stopped without one. */
  answer: string;
  references: InsightReference[];
  unverified: (InsightReference & { problem: string })[];
  /** The repository's top level as read, null when there was none. */
  repoRoot: string | null;
  headCommit: string | null;
  /** null: the agent answered; otherwise why it ended without its own answer. */
  stoppedBy: InsightStop | null;
  toolCalls: number;
  model: string;
}

const STOPPED: Record<InsightStop, string> = {
  model_call_limit: "its budget of model calls ran out",
  step_limit: "it kept looping without answering",
  no_answer: "the model ended without giving its answer",
};

/**
 * The insight lane's investigation without its recording: the read-only agent over the repository
 * (or, with no repository, over an empty folder), its references checked against the files. Writes
 * nothing anywhere; `runInsight` records into the repository's `.devflow/`, the daemon into its data
 * root (ADR 0057).
 */
export async function investigate(input: InvestigateInput): Promise<Investigation> {
  const question = input.question.trim();
  if (!question)
    throw new DevflowError("REQUEST_EMPTY", "the question is empty: ask what you want explained");
  const repoRoot = input.repoRoot === null ? null : await assertGitRepo(input.repoRoot);
  const workspace = repoRoot ?? input.emptyDir;
  if (workspace === undefined)
    throw new DevflowError("REQUEST_EMPTY", "an investigation without a repository needs an empty folder");
  const head = repoRoot ? await headCommit(repoRoot) : null;
  const run = await runInsightAgent({
    gateway: input.gateway,
    repoRoot: workspace,
    withoutRepository: repoRoot === null,
    question,
    priorTurns: input.priorTurns,
    ...(input.signal ? { signal: input.signal } : {}),
  });
  const { references, unverified } = await checkReferences(workspace, run.findings?.references ?? []);
  const answer =
    run.findings?.answer ??
    `The investigation stopped before reaching an answer: ${STOPPED[run.stoppedBy ?? "no_answer"]} after ${run.toolCalls} tool call(s). Ask a narrower question, e.g. name the file or function to look at.`;
  return {
    question,
    answer,
    references,
    unverified,
    repoRoot,
    headCommit: head,
    stoppedBy: run.stoppedBy,
    toolCalls: run.toolCalls,
    model: input.gateway.modelName("insight"),
  };
}
