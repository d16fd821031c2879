import { OUTPUT_TOKEN_BUDGET } from "../../tools/loop-guards/index.js";

export interface BuiltinLimits {
  /** Model turns per run, the final answer included; then the run ends as turn_limit. */
  modelCalls: number;
  /** Tool calls per run; beyond it calls are refused and the model is told to stop calling tools. */
  toolCalls: number;
  /** Retries of a transient model failure (rate limit, 5xx, connection, timeout). */
  modelRetries: number;
  /** First backoff of those retries (doubles each time). */
  modelRetryDelayMs: number;
  /** Default timeout of one run_command (the model may ask for more, up to run_command's cap). */
  commandTimeoutMs: number;
  /** Output tokens before the budget guard nudges; it stops the run at twice this. */
  outputTokenBudget: number;
  /** Cap of coder_transcript.log in bytes; the run goes on when it is reached. */
  transcriptCapBytes: number;
}

/**
 * A coding run needs far more turns than the Observer's 12: read, edit, run the check, fix, run
 * the tests. The loop guards catch a stuck model long before these limits do.
 */
export const DEFAULT_BUILTIN_LIMITS: BuiltinLimits = {
  modelCalls: 50,
  toolCalls: 150,
  modelRetries: 2,
  modelRetryDelayMs: 1000,
  commandTimeoutMs: 120_000,
  outputTokenBudget: OUTPUT_TOKEN_BUDGET,
  transcriptCapBytes: 4 * 1024 * 1024,
};
