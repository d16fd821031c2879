import { type Command, InvalidArgumentError } from "commander";

/** The model-endpoint limit flags every command that calls a model takes (route, iterate, chat). */
export interface ModelLimitFlags {
  modelTimeout?: number;
  modelBudget?: number;
  modelRetries?: number;
}

export const positiveSeconds = (name: string) => (value: string) => {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0)
    throw new InvalidArgumentError(`${name} must be a number of seconds > 0`);
  return n;
};

const retryCount = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new InvalidArgumentError("--model-retries must be a whole number ≥ 0");
  return n;
};

export function addModelLimitOptions(command: Command): Command {
  return command
    .option(
      "--model-timeout <seconds>",
      "limit per model request (default: $DEVFLOW_MODEL_TIMEOUT, else 90)",
      positiveSeconds("--model-timeout"),
    )
    .option(
      "--model-budget <seconds>",
      "limit per model call, retries and waits included (default: $DEVFLOW_MODEL_BUDGET, else 120)",
      positiveSeconds("--model-budget"),
    )
    .option(
      "--model-retries <N>",
      "retries of a 429/5xx/reset/stall per model call (default: $DEVFLOW_MODEL_RETRIES, else 2)",
      retryCount,
    );
}

/** The flags as createModelGateway options; unset flags fall through to the environment, then the defaults. */
export function modelLimitsFromFlags(flags: ModelLimitFlags): {
  timeoutMs?: number;
  budgetMs?: number;
  maxRetries?: number;
} {
  return {
    ...(flags.modelTimeout === undefined ? {} : { timeoutMs: Math.round(flags.modelTimeout * 1000) }),
    ...(flags.modelBudget === undefined ? {} : { budgetMs: Math.round(flags.modelBudget * 1000) }),
    ...(flags.modelRetries === undefined ? {} : { maxRetries: flags.modelRetries }),
  };
}
