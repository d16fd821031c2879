import { GraphRecursionError } from "@langchain/langgraph";
import type { BuiltinLimits } from "../../agents/builtin-coder/index.js";
import { findCause } from "../../errors/index.js";
import { isModelCallError } from "../../models/contract.js";
import type { GuardDecision } from "../../tools/loop-guards/index.js";
import type { CoderFailureStatus, CoderOutcome } from "../contract.js";
import type { AssistantTurn } from "./transcript.js";

/** Everything a builtin run's status is decided from, gathered after the agent stopped. */
export interface RunFacts {
  /** The caller's signal aborted (takes precedence: whatever else happened, they stopped it). */
  aborted: boolean;
  /** The run's own timeout fired. */
  timedOut: boolean;
  timeoutMs: number;
  /** What the agent threw, or null when it ended by itself. */
  error: unknown;
  guardStop: GuardDecision | null;
  lastAssistant: AssistantTurn | null;
  toolCallsRequested: number;
  limits: BuiltinLimits;
}

/** How the builtin run ended: the contract's outcome (error null exactly when ok). */
export type RunOutcome = CoderOutcome;

/**
 * The CoderStatus of a finished run. "ok" means the model ended by itself with a final message;
 * every limit (model turns, tool calls, graph steps, a loop guard's stop) is turn_limit, except the
 * output-token budget, which is budget. The work stays in the worktree in every case.
 */
export function decideOutcome(facts: RunFacts): RunOutcome {
  if (facts.aborted) return { status: "aborted", error: "the run was aborted; the agent was stopped" };
  if (facts.timedOut) {
    return {
      status: "timeout",
      error: `the builtin coder did not finish within ${facts.timeoutMs} ms; the agent and its running command were stopped`,
    };
  }
  if (facts.error !== null) return fromError(facts.error, facts.limits);
  if (facts.guardStop !== null) {
    return {
      status: facts.guardStop.kind === "output_budget" ? "budget" : "turn_limit",
      error: `a loop guard stopped the run after its nudge was ignored (${facts.guardStop.kind}): ${facts.guardStop.detail}`,
    };
  }
  const last = facts.lastAssistant;
  if (last === null) return { status: "error", error: "the model never answered" };
  if (last.toolCalls > 0) {
    return {
      status: "turn_limit",
      error: `the run reached its limit of ${facts.limits.modelCalls} model turns before the model finished`,
    };
  }
  if (facts.toolCallsRequested > facts.limits.toolCalls) {
    return {
      status: "turn_limit",
      error: `the model asked for ${facts.toolCallsRequested} tool calls, over the limit of ${facts.limits.toolCalls}; the calls beyond it were refused`,
    };
  }
  if (last.text.trim() === "") {
    return { status: "error", error: "the model ended without a final message saying what it did" };
  }
  return { status: "ok", error: null };
}

function fromError(error: unknown, limits: BuiltinLimits): RunOutcome {
  if (findCause(error, (e): e is GraphRecursionError => e instanceof GraphRecursionError)) {
    return {
      status: "turn_limit",
      error: `the agent hit its step limit (about ${limits.modelCalls} model turns) without finishing`,
    };
  }
  const modelError = findCause(error, isModelCallError);
  if (modelError !== undefined) {
    const status: CoderFailureStatus =
      modelError.code === "MODEL_AUTH"
        ? "auth"
        : modelError.code === "MODEL_RATE_LIMIT"
          ? "rate_limit"
          : "error";
    return { status, error: modelError.message };
  }
  return { status: "error", error: error instanceof Error ? error.message : String(error) };
}
