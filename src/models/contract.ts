import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseMessage } from "@langchain/core/messages";
import type { z } from "zod";
import type { Usage } from "../artifacts/schemas/index.js";
import { DevflowError, type ErrorCode, findCause, isDevflowError } from "../errors/index.js";

/** Every model call is made for a role; cassettes, usage and per-role model overrides key on it. */
export const ROLES = [
  "router",
  "framer",
  "observer",
  "iterator",
  "critic",
  "insight",
  "idea",
  "neither",
  "coder",
] as const;
export type Role = (typeof ROLES)[number];

/** Per role, how many answers of a cassette were consumed (replay) or recorded (record). */
export type CassetteCalls = Partial<Record<Role, number>>;

/**
 * Where a run stands in its cassette (the file's absolute path): lanes checkpoint it after every
 * node, so a run resumed with the same cassette continues it where its checkpoint stands; a run
 * resumed with another cassette starts that one at its first answers (ADR 0035).
 */
export interface CassetteCursor {
  cassette: string;
  calls: CassetteCalls;
}

export interface StructuredCall<S extends z.ZodType> {
  role: Role;
  /** Name of the structured answer (becomes the function/tool name), e.g. "task_framing". */
  name: string;
  description: string;
  schema: S;
  messages: BaseMessage[];
  /** Usage is also booked under this attempt id (default: the one set by setAttempt, if any). */
  attemptId?: string;
}

export interface UsageSnapshot {
  total: Usage;
  by_role: Record<string, Usage>;
  by_attempt: Record<string, Usage>;
  /** False when some call used a model missing from the price table (its cost counts as 0). */
  priced: boolean;
  /** Models booked without a known price, so reports can say which costs are missing. */
  unpriced_models: string[];
  /**
   * Calls whose cost is unknown (an unpriced model, a coder that reported no cost): their cost counts
   * as 0 in `total` but the daemon's spend ledger records them as unknown (ADR 0053). Absent: 0.
   */
  unknown_cost_calls?: number;
}

/**
 * The one door to models. Live (ChatOpenAI on any OpenAI-compatible endpoint), replay
 * (cassette) and record all implement it, so the graph never knows which one it has.
 */
export interface ModelGateway {
  readonly mode: "live" | "replay" | "record";
  /** Model name used for a role (for reports). */
  modelName(role: Role): string;
  /**
   * A structured answer validated against `schema`. An invalid answer gets exactly one
   * repair round that shows the model the validation error; a second failure throws
   * a MODEL_NO_VALID_ANSWER DevflowError naming the role and the problem.
   */
  structured<S extends z.ZodType>(call: StructuredCall<S>): Promise<z.infer<S>>;
  /** A chat model for tool-using agents (createAgent); its usage is booked under `role`. */
  chatModel(role: Role): BaseChatModel;
  usage(): UsageSnapshot;
  /** Books usage a coder CLI reported for itself (role "coder"), so run totals include it. */
  recordExternalUsage(
    role: Role,
    tokens: { input_tokens: number; output_tokens: number },
    costUsd: number | null,
    attemptId: string | null,
  ): void;
  /** Book subsequent chatModel() usage under this attempt id (null: none). */
  setAttempt(attemptId: string | null): void;
  /** Record mode writes the cassette; others no-op. */
  flush(): Promise<void>;
  /** Answers consumed (replay) or recorded (record) so far, per role; null when live. */
  cassetteCursor(): CassetteCursor | null;
  /**
   * Continues the cassette from a resumed run's checkpointed cursor (ADR 0035): replay hands out
   * the answers after it; record keeps the cassette's answers up to it and appends after them.
   * A role this gateway has already gone further in is left where it is. A cursor of another
   * cassette file, and live mode: no-op.
   */
  resumeCassette(cursor: CassetteCursor | null): void;
}

/** The model answered twice (once after the repair round) without matching the schema. */
export function structuredOutputError(role: Role, message: string): DevflowError<"MODEL_NO_VALID_ANSWER"> {
  return new DevflowError("MODEL_NO_VALID_ANSWER", message, { details: { role } });
}

/** A cassette has fewer answers for a role than the run asked for: the scenario and cassette disagree. */
export function replayExhaustedError(
  role: Role,
  /** 1-based number of the call that found no answer. */
  callNumber: number,
  message: string,
  cassette?: string,
): DevflowError<"REPLAY_EXHAUSTED"> {
  return new DevflowError("REPLAY_EXHAUSTED", message, {
    details: { role, callNumber, ...(cassette === undefined ? {} : { cassette }) },
  });
}

/** One code per way a live model call fails; lets callers tell auth from a rate limit. */
export const MODEL_CALL_CODES = [
  "MODEL_AUTH",
  "MODEL_NOT_FOUND",
  "MODEL_RATE_LIMIT",
  "MODEL_SERVER",
  "MODEL_CONNECTION",
  "MODEL_TIMEOUT",
  "MODEL_REQUEST",
  "MODEL_BAD_RESPONSE",
] as const satisfies readonly ErrorCode[];
export type ModelCallCode = (typeof MODEL_CALL_CODES)[number];

/** A live model call failed; the message names the endpoint and what to check, `cause` is the original. */
export type ModelCallError = DevflowError<ModelCallCode>;

export function isModelCallError(error: unknown): error is ModelCallError {
  return isDevflowError(error) && (MODEL_CALL_CODES as readonly ErrorCode[]).includes(error.code);
}

const TRANSIENT_MODEL_CALL_CODES: ReadonlySet<ErrorCode> = new Set<ModelCallCode>([
  "MODEL_RATE_LIMIT",
  "MODEL_SERVER",
  "MODEL_CONNECTION",
  "MODEL_TIMEOUT",
]);

/** A model call failure worth a retry (the endpoint may answer a moment later), wrapped or not. */
export function isTransientModelError(error: unknown): boolean {
  const modelError = findCause(error, isModelCallError);
  return modelError !== undefined && TRANSIENT_MODEL_CALL_CODES.has(modelError.code);
}
