import { type Command, InvalidArgumentError } from "commander";

/**
 * The model-endpoint limit flags every command that calls a model takes (route, iterate, chat).
 * Their values reach the gateway through the resolved config (command-config.ts, ADR 0047).
 */
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
