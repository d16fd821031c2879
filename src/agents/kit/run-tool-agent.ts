import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { GraphRecursionError } from "@langchain/langgraph";
import {
  type AgentMiddleware,
  AIMessage,
  type BaseMessage,
  createAgent,
  createMiddleware,
  HumanMessage,
  modelCallLimitMiddleware,
  modelRetryMiddleware,
  ToolMessage,
  toolCallLimitMiddleware,
  toolStrategy,
} from "langchain";
import type { z } from "zod";
import { unwrapDevflowError } from "../../errors/index.js";
import { isTransientModelError, type Role, structuredOutputError } from "../../models/contract.js";
import { type AgentTool, answerRepairMiddleware } from "../../tools/index.js";

/** The agent's final structured answer: a tool the model calls once, at the end. */
export interface AnswerSpec<S extends z.ZodObject> {
  /** Tool name the model calls (cassettes may name it). */
  tool: string;
  description: string;
  schema: S;
  /** The message telling the model what was wrong with an invalid answer (one repair round). */
  repairFeedback: (problems: string) => string;
  /** How the agent is named in a schema-mismatch error, e.g. "the observer's". */
  owner: string;
}

export interface ToolAgentLimits {
  /** Model turns, the final answer included; then the agent ends. */
  modelCalls: number;
  /** Tool calls over the run; beyond it calls are refused and the model is told so. */
  toolCalls: number;
}

export interface ModelRetrySpec {
  maxRetries: number;
  /** First backoff (doubles each time). */
  initialDelayMs: number;
}

export interface ToolAgentSpec<S extends z.ZodObject> {
  /** The agent's graph name (shows up in traces). */
  name: string;
  /** Model role: the answer-repair error names it. */
  role: Role;
  model: BaseChatModel;
  tools: AgentTool[];
  systemPrompt: string;
  /** The first user message. */
  input: string;
  limits: ToolAgentLimits;
  /** Retries of transient model failures (none when absent); never once the signal aborted. */
  modelRetry?: ModelRetrySpec;
  /** Outermost middleware, before the limits (e.g. a transcript that must see every answer once). */
  observe?: AgentMiddleware[];
  /** Middleware after the limits and retry (e.g. loop guards). */
  guards?: AgentMiddleware[];
  /** The structured final answer, when the agent has one; without it the agent ends with text. */
  answer?: AnswerSpec<S>;
  signal: AbortSignal;
}

/** What every run reports, however it ended. */
export interface ToolAgentStats {
  /** Model calls the agent made (langchain's thread count). */
  modelCalls: number;
  /** Tool calls that ran (calls refused by the tool call limit do not count). */
  toolCalls: number;
  /** The agent's messages at its last state. */
  messages: BaseMessage[];
}

export type ToolAgentResult<T> = ToolAgentStats &
  (
    | { status: "answered"; answer: T }
    /** Ended by itself without its structured answer (or, without an answer spec, mid tool call). */
    | { status: "no_answer" }
    | { status: "limit_hit"; limit: "model_calls" }
    /** The graph step backstop tripped; `error` is langchain's GraphRecursionError. */
    | { status: "limit_hit"; limit: "steps"; error: unknown }
    /** The signal aborted while it ran; `error` is what the run threw. */
    | { status: "aborted"; error: unknown }
    /** It threw; devflow's own error classes arrive unwrapped from langchain's wrappers. */
    | { status: "failed"; error: unknown }
  );

type AgentState = { messages: BaseMessage[]; structuredResponse?: unknown; threadModelCallCount?: number };

/**
 * The one tool-agent loop: a langchain createAgent agent with call limits, optional model retry,
 * the caller's middleware, an optional structured answer with one repair round, and a graph step
 * backstop, streamed to its end and classified into one result.
 *
 * It never shares the caller's checkpointer (`checkpointer: false`): run inside a LangGraph node,
 * createAgent would otherwise inherit the lane's SQLite checkpointer, and a re-executed node
 * (resume after a crash or Ctrl-C) would replay the agent's finished checkpoint, which holds no
 * structured answer. An agent run is one unit: re-executing it runs it again from the start.
 */
export async function runToolAgent<S extends z.ZodObject>(
  spec: ToolAgentSpec<S> & { answer: AnswerSpec<S> },
): Promise<ToolAgentResult<z.output<S>>>;
export async function runToolAgent(
  spec: ToolAgentSpec<z.ZodObject> & { answer?: undefined },
): Promise<ToolAgentResult<string>>;
export async function runToolAgent<S extends z.ZodObject>(
  spec: ToolAgentSpec<S>,
): Promise<ToolAgentResult<z.output<S> | string>> {
  const { signal, limits } = spec;
  const seen: { lastAnswer: AIMessage | null } = { lastAnswer: null };
  const middleware = [
    ...(spec.observe ?? []),
    createMiddleware({
      name: "LastModelAnswer",
      wrapModelCall: async (request, handler) => {
        const message = await handler(request);
        if (AIMessage.isInstance(message)) seen.lastAnswer = message;
        return message;
      },
    }),
    modelCallLimitMiddleware({ runLimit: limits.modelCalls, exitBehavior: "end" }),
    toolCallLimitMiddleware({ runLimit: limits.toolCalls, exitBehavior: "continue" }),
    ...(spec.modelRetry
      ? [
          modelRetryMiddleware({
            maxRetries: spec.modelRetry.maxRetries,
            initialDelayMs: spec.modelRetry.initialDelayMs,
            retryOn: (error) => !signal.aborted && isTransientModelError(error),
            onFailure: "error",
          }),
        ]
      : []),
    ...(spec.guards ?? []),
    // Last (innermost): it must see langchain's own parse errors, not a middleware wrapper.
    ...(spec.answer
      ? [
          answerRepairMiddleware({
            role: spec.role,
            answerTool: spec.answer.tool,
            feedback: spec.answer.repairFeedback,
          }),
        ]
      : []),
  ];
  const common = {
    model: spec.model,
    tools: spec.tools,
    systemPrompt: spec.systemPrompt,
    middleware,
    name: spec.name,
    checkpointer: false,
  };
  const agent = spec.answer
    ? createAgent({
        ...common,
        // handleError false: an invalid answer is repaired by answerRepairMiddleware (see src/tools).
        responseFormat: toolStrategy(
          spec.answer.schema.meta({ title: spec.answer.tool, description: spec.answer.description }),
          { handleError: false },
        ),
      })
    : createAgent(common);

  let last: AgentState = { messages: [] };
  const stats = (): ToolAgentStats => ({
    modelCalls: last.threadModelCallCount ?? 0,
    toolCalls: countToolCalls(last.messages, new Set(spec.tools.map((t) => t.name))),
    messages: last.messages,
  });
  try {
    const stream = await agent.stream(
      { messages: [new HumanMessage(spec.input)] },
      // Each model turn passes through several graph steps (middleware hooks, tools); the model
      // call limit is meant to trip long before this backstop does.
      { streamMode: "values", signal, recursionLimit: (limits.modelCalls + 2) * 10 },
    );
    for await (const state of stream) last = state as AgentState;
  } catch (error) {
    if (error instanceof GraphRecursionError)
      return { ...stats(), status: "limit_hit", limit: "steps", error };
    if (signal.aborted) return { ...stats(), status: "aborted", error: unwrapDevflowError(error) };
    return { ...stats(), status: "failed", error: unwrapDevflowError(error) };
  }

  const counts = stats();
  if (spec.answer) {
    if (last.structuredResponse !== undefined) {
      const parsed = spec.answer.schema.safeParse(last.structuredResponse);
      if (parsed.success) return { ...counts, status: "answered", answer: parsed.data };
      const error = structuredOutputError(
        spec.role,
        `${spec.answer.owner} ${spec.answer.tool} answer does not match the schema: ${parsed.error.message}`,
      );
      return { ...counts, status: "failed", error };
    }
    if (counts.modelCalls >= limits.modelCalls)
      return { ...counts, status: "limit_hit", limit: "model_calls" };
    return { ...counts, status: "no_answer" };
  }
  // The model's own last answer: the call limit's "limit exceeded" message is not one.
  const final = seen.lastAnswer;
  if (final !== null && (final.tool_calls ?? []).length === 0) {
    return { ...counts, status: "answered", answer: final.text };
  }
  if (counts.modelCalls >= limits.modelCalls) return { ...counts, status: "limit_hit", limit: "model_calls" };
  return { ...counts, status: "no_answer" };
}

/** What the run threw (failed, aborted, step limit); null when it ended by itself. */
export function thrownBy(result: ToolAgentResult<unknown>): unknown {
  return "error" in result ? result.error : null;
}

/** Tool calls that actually ran (calls refused by the tool call limit come back as error messages). */
function countToolCalls(messages: BaseMessage[], toolNames: Set<string>): number {
  return messages.filter(
    (m) => ToolMessage.isInstance(m) && m.name !== undefined && toolNames.has(m.name) && m.status !== "error",
  ).length;
}
