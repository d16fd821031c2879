import { GraphRecursionError } from "@langchain/langgraph";
import {
  type BaseMessage,
  createAgent,
  HumanMessage,
  modelCallLimitMiddleware,
  ToolMessage,
  toolCallLimitMiddleware,
  toolStrategy,
} from "langchain";
import type { ConversationTurn as Turn } from "../../artifacts/schemas/index.js";
import { InsightFindings } from "../../artifacts/schemas/index.js";
import {
  ModelCallError,
  type ModelGateway,
  ReplayExhaustedError,
  StructuredOutputError,
} from "../../models/contract.js";
import { answerRepairMiddleware, readOnlyTools, type ToolContext } from "../../tools/index.js";
import { renderTurns } from "../../util/prior-turns.js";
import { fillPrompt, loadPrompt } from "../../util/prompts.js";
import { repoMap } from "../../workspace/index.js";

/** The structured-answer tool the insight agent ends with; cassettes may name it. */
export const INSIGHT_ANSWER_TOOL = "insight_answer";

export interface InsightLimits {
  /** Model turns, including the final answer. */
  modelCalls: number;
  /** Tool calls over the whole run; beyond it the model is told to stop calling tools. */
  toolCalls: number;
}

export const DEFAULT_INSIGHT_LIMITS: InsightLimits = { modelCalls: 12, toolCalls: 30 };

export type InsightStop = "model_call_limit" | "step_limit" | "no_answer";

export interface InsightAgentResult {
  /** null when the agent stopped without its own answer (see stoppedBy). */
  findings: InsightFindings | null;
  stoppedBy: InsightStop | null;
  toolCalls: number;
}

const FindingsAnswer = InsightFindings.meta({
  title: INSIGHT_ANSWER_TOOL,
  description: "Your final answer with its file and line references. Call this exactly once, at the end.",
});

/**
 * The insight investigation: a createAgent agent over the repository with the read-only tools
 * only (list_files, read_file, search). It has no tool that runs a command or writes a file, so
 * it cannot change the working tree or git state whatever the model asks for.
 */
export async function runInsightAgent(input: {
  gateway: ModelGateway;
  repoRoot: string;
  question: string;
  priorTurns: Turn[];
  signal?: AbortSignal;
  limits?: Partial<InsightLimits>;
}): Promise<InsightAgentResult> {
  const limits = { ...DEFAULT_INSIGHT_LIMITS, ...input.limits };
  const signal = input.signal ?? new AbortController().signal;
  const ctx: ToolContext = { worktree: input.repoRoot, signal, written: new Set() };
  const tools = readOnlyTools(ctx);
  const toolNames = new Set(tools.map((t) => t.name));
  const map = await repoMap(input.repoRoot, { maxFiles: 300 });

  const agent = createAgent({
    model: input.gateway.chatModel("insight"),
    tools,
    systemPrompt: fillPrompt(loadPrompt("insight"), {
      answer_tool: INSIGHT_ANSWER_TOOL,
      repo_map: map.trim() || "(no repository map available; use list_files)",
      model_call_limit: String(limits.modelCalls),
      tool_call_limit: String(limits.toolCalls),
    }),
    // handleError false: an invalid answer is repaired by answerRepairMiddleware (see src/tools).
    responseFormat: toolStrategy(FindingsAnswer, { handleError: false }),
    middleware: [
      modelCallLimitMiddleware({ runLimit: limits.modelCalls, exitBehavior: "end" }),
      toolCallLimitMiddleware({ runLimit: limits.toolCalls, exitBehavior: "continue" }),
      answerRepairMiddleware({
        role: "insight",
        answerTool: INSIGHT_ANSWER_TOOL,
        feedback: (problems) =>
          fillPrompt(loadPrompt("insight", "answer-repair.md"), {
            answer_tool: INSIGHT_ANSWER_TOOL,
            problems,
          }),
      }),
    ],
    name: "insight",
  });

  const turns = renderTurns(input.priorTurns);
  const question = [turns && `## Prior turns\n${turns}`, `## Question\n${input.question.trim()}`]
    .filter(Boolean)
    .join("\n\n");
  let last: { messages: BaseMessage[]; structuredResponse?: unknown; threadModelCallCount?: number } = {
    messages: [],
  };
  let stepLimitHit = false;
  try {
    const stream = await agent.stream(
      { messages: [new HumanMessage(question)] },
      { streamMode: "values", signal, recursionLimit: (limits.modelCalls + 2) * 10 },
    );
    for await (const state of stream) last = state;
  } catch (error) {
    if (!(error instanceof GraphRecursionError)) throw ownError(error);
    stepLimitHit = true;
  }

  const toolCalls = last.messages.filter(
    (m) => ToolMessage.isInstance(m) && m.name !== undefined && toolNames.has(m.name) && m.status !== "error",
  ).length;
  if (last.structuredResponse !== undefined && !stepLimitHit) {
    const parsed = InsightFindings.safeParse(last.structuredResponse);
    if (!parsed.success) {
      throw new StructuredOutputError(
        "insight",
        `the insight agent's ${INSIGHT_ANSWER_TOOL} answer does not match the schema: ${parsed.error.message}`,
      );
    }
    return { findings: parsed.data, stoppedBy: null, toolCalls };
  }
  const modelCalls = last.threadModelCallCount ?? 0;
  const stoppedBy: InsightStop = stepLimitHit
    ? "step_limit"
    : modelCalls >= limits.modelCalls
      ? "model_call_limit"
      : "no_answer";
  return { findings: null, stoppedBy, toolCalls };
}

const OWN_ERRORS = [StructuredOutputError, ModelCallError, ReplayExhaustedError];

/** langchain wraps middleware errors; devflow's own classes reach the caller unwrapped. */
function ownError(error: unknown): unknown {
  let e: unknown = error;
  for (let depth = 0; e instanceof Error && depth < 10; depth++, e = e.cause) {
    const candidate = e;
    if (OWN_ERRORS.some((kind) => candidate instanceof kind)) return candidate;
  }
  return error;
}
