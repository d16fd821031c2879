import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { ToolConfinement, ToolContext } from "../../tools/index.js";
import { type GuardDecision, loopGuardMiddleware } from "../../tools/loop-guards/index.js";
import { fillPrompt, loadPrompt } from "../../util/prompts.js";
import { runToolAgent, type ToolAgentResult } from "../kit/index.js";
import type { BuiltinLimits } from "./limits.js";
import type { CoderRunLog } from "./run-log.js";
import { builtinCoderTools } from "./tools.js";
import { transcriptMiddleware } from "./transcript-middleware.js";

const PROMPT_AGENT = "builtin-coder";

export interface BuiltinCoderAgentInput {
  /** The gateway's "coder" chat model. */
  model: BaseChatModel;
  /** The task prompt devflow built (agents/coder): the first user message. */
  prompt: string;
  /** Absolute worktree path; every tool is confined to it. */
  worktree: string;
  limits: BuiltinLimits;
  /** The caller's stop and the run's timeout, merged. */
  signal: AbortSignal;
  log: CoderRunLog;
  /** Redacts the run's own secrets from tool results before the model sees them. */
  redact: (text: string) => string;
  /** The coder run's marker and mount plan: run_command runs confined with them (ADR 0031). */
  confinement: ToolConfinement;
}

export interface BuiltinCoderAgentRun {
  run: ToolAgentResult<string>;
  /** The loop guard's stop, when a guard ended the run after its nudge was ignored. */
  guardStop: GuardDecision | null;
}

/**
 * devflow's own coding agent: a tool agent (runToolAgent) over the coder model with tools confined
 * to the worktree, model retry, and junco's loop guards (nudge once, stop on the second trip). It
 * never commits; what it changed is read from git by the lane.
 */
export async function runBuiltinCoderAgent(input: BuiltinCoderAgentInput): Promise<BuiltinCoderAgentRun> {
  const { limits, log } = input;
  const ctx: ToolContext = {
    worktree: input.worktree,
    signal: input.signal,
    written: new Set(),
    confinement: input.confinement,
  };
  let guardStop: GuardDecision | null = null;
  const run = await runToolAgent({
    name: "coder-builtin",
    role: "coder",
    model: input.model,
    tools: builtinCoderTools(ctx, { commandTimeoutMs: limits.commandTimeoutMs }),
    systemPrompt: fillPrompt(loadPrompt(PROMPT_AGENT), {
      model_call_limit: String(limits.modelCalls),
      tool_call_limit: String(limits.toolCalls),
    }),
    input: input.prompt,
    limits,
    modelRetry: { maxRetries: limits.modelRetries, initialDelayMs: limits.modelRetryDelayMs },
    // Outermost: retried model calls are logged once, as they were answered.
    observe: [transcriptMiddleware(log, input.redact)],
    guards: [
      loopGuardMiddleware({
        outputTokenBudget: limits.outputTokenBudget,
        nudge: (trip) =>
          fillPrompt(loadPrompt(PROMPT_AGENT, `nudge-${trip.kind}.md`), { detail: trip.detail }).trim(),
        onDecision: (decision) => {
          log.record({ type: "guard", ...decision });
          if (decision.action === "stop") guardStop = decision;
        },
      }),
    ],
    signal: input.signal,
  });
  return { run, guardStop };
}
