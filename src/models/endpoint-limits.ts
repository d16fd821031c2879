import { DevflowError } from "../errors/index.js";

/**
 * How long devflow waits for a model endpoint, one model call at a time. The defaults fail a hung
 * endpoint in at most DEFAULT_BUDGET_MS (two minutes): a reasoning model's slow answer fits in one
 * request, a dead one surfaces before the user gives up on the terminal.
 */
export interface EndpointLimits {
  /** One HTTP request, from sending to the last byte of the answer. */
  timeoutMs: number;
  /** One model call: every attempt and every wait between them (Retry-After, backoff). */
  budgetMs: number;
  /** Retries after the first attempt, for retryable faults only (429, 5xx, reset, stall, cut-off body). */
  maxRetries: number;
}

export const DEFAULT_TIMEOUT_MS = 90_000;
export const DEFAULT_BUDGET_MS = 120_000;
export const DEFAULT_MAX_RETRIES = 2;

/** The environment variables that set the limits (seconds, seconds, a count). */
export const LIMIT_ENV = {
  timeoutMs: "DEVFLOW_MODEL_TIMEOUT",
  budgetMs: "DEVFLOW_MODEL_BUDGET",
  maxRetries: "DEVFLOW_MODEL_RETRIES",
} as const;

/**
 * The limits for a run, layered: an explicit option (a CLI flag, or a caller's config) beats the
 * environment, which beats the default. A malformed variable is a one-line configuration error.
 */
export function resolveEndpointLimits(
  explicit: Partial<EndpointLimits>,
  env: NodeJS.ProcessEnv,
): EndpointLimits {
  return {
    timeoutMs: explicit.timeoutMs ?? secondsFromEnv(env, LIMIT_ENV.timeoutMs) ?? DEFAULT_TIMEOUT_MS,
    budgetMs: explicit.budgetMs ?? secondsFromEnv(env, LIMIT_ENV.budgetMs) ?? DEFAULT_BUDGET_MS,
    maxRetries: explicit.maxRetries ?? countFromEnv(env, LIMIT_ENV.maxRetries) ?? DEFAULT_MAX_RETRIES,
  };
}

function secondsFromEnv(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new DevflowError(
      "MODEL_CONFIG",
      `${name} must be a number of seconds > 0 (got ${JSON.stringify(raw)})`,
    );
  return Math.round(seconds * 1000);
}

function countFromEnv(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const count = Number(raw);
  if (!Number.isInteger(count) || count < 0)
    throw new DevflowError("MODEL_CONFIG", `${name} must be a whole number ≥ 0 (got ${JSON.stringify(raw)})`);
  return count;
}
