import type { ConversationTurn as Turn } from "../../artifacts/schemas/index.js";
import { InsightFindings } from "../../artifacts/schemas/index.js";
import type { ModelGateway } from "../../models/contract.js";
import { readOnlyTools, type ToolContext } from "../../tools/index.js";
import { fillPrompt, loadPrompt } from "../../util/prompts.js";
import { repoMap } from "../../workspace/index.js";
import { renderTurns, runToolAgent } from "../kit/index.js";

/** The structured-answer tool the insight agent ends with; cassettes may name it. */
export const INSIGHT_ANSWER_TOOL = "insight_answer";

export interface InsightLimits {
  /** Model turns, including the final answer. */
  modelCalls: number;
  /** Tool calls over the whole run; beyond it the model is told to stop calling tools. */
  toolCalls: number;
}

export const DEFAULT_INSIGHT_LIMITS: InsightLimits = { modelCalls: 12, toolCalls: 30 };

const NO_REPOSITORY =
  "(no repository: this question names none, so the tools see an empty folder. Answer from the question and what you know, and say plainly what you cannot know without the code.)";

export type InsightStop = "model_call_limit" | "step_limit" | "no_answer";

export interface InsightAgentResult {
  /** null when the agent stopped without its own answer (see stoppedBy). */
  findings: InsightFindings | null;
  stoppedBy: InsightStop | null;
  toolCalls: number;
}

/**
 * The insight investigation: a tool agent (runToolAgent) over the repository with the read-only
 * tools only (list_files, read_file, search). It has no tool that runs a command or writes a file,
 * so it cannot change the working tree or git state whatever the model asks for.
 */
export async function runInsightAgent(input: {
  gateway: ModelGateway;
  repoRoot: string;
  /** No repository to read (a daemon question ticket, ADR 0057): `repoRoot` is an empty folder. */
  withoutRepository?: boolean;
  question: string;
  priorTurns: Turn[];
  signal?: AbortSignal;
  limits?: Partial<InsightLimits>;
}): Promise<InsightAgentResult> {
  const limits = { ...DEFAULT_INSIGHT_LIMITS, ...input.limits };
  const signal = input.signal ?? new AbortController().signal;
  const ctx: ToolContext = { worktree: input.repoRoot, signal, written: new Set() };
  const map = input.withoutRepository ? NO_REPOSITORY : await repoMap(input.repoRoot, { maxFiles: 300 });
  const turns = renderTurns(input.priorTurns);

  const run = await runToolAgent({
    name: "insight",
    role: "insight",
    model: input.gateway.chatModel("insight"),
    tools: readOnlyTools(ctx),
    systemPrompt: fillPrompt(loadPrompt("insight"), {
      answer_tool: INSIGHT_ANSWER_TOOL,
      repo_map: map.trim() || "(no repository map available; use list_files)",
      model_call_limit: String(limits.modelCalls),
      tool_call_limit: String(limits.toolCalls),
    }),
    input: [turns && `## Prior turns\n${turns}`, `## Question\n${input.question.trim()}`]
      .filter(Boolean)
      .join("\n\n"),
    limits,
    answer: {
      tool: INSIGHT_ANSWER_TOOL,
      description: "Your final answer with its file and line references. Call this exactly once, at the end.",
      schema: InsightFindings,
      owner: "the insight agent's",
      repairFeedback: (problems) =>
        fillPrompt(loadPrompt("insight", "answer-repair.md"), { answer_tool: INSIGHT_ANSWER_TOOL, problems }),
    },
    signal,
  });
  if (run.status === "failed" || run.status === "aborted") throw run.error;
  if (run.status === "answered") return { findings: run.answer, stoppedBy: null, toolCalls: run.toolCalls };
  const stoppedBy: InsightStop =
    run.status === "no_answer" ? "no_answer" : run.limit === "steps" ? "step_limit" : "model_call_limit";
  return { findings: null, stoppedBy, toolCalls: run.toolCalls };
}
