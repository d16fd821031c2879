import { EXIT, EXIT_MEANINGS, type ExitName } from "./exit-codes.js";

/** An environment variable a command reads, and what for. */
export type EnvVar = readonly [name: string, meaning: string];

/** The variables every command that calls a model reads (src/models, ADR 0034). */
export const MODEL_ENV: readonly EnvVar[] = [
  ["OPENAI_API_KEY", "the model endpoint's key (live and --record)"],
  ["OPENAI_BASE_URL", "an OpenAI-compatible endpoint instead of api.openai.com"],
  ["DEVFLOW_MODEL_TIMEOUT", "seconds per HTTP request (default 90; --model-timeout)"],
  ["DEVFLOW_MODEL_BUDGET", "seconds per model call, retries included (default 120; --model-budget)"],
  ["DEVFLOW_MODEL_RETRIES", "retries of transient endpoint faults (default 2; --model-retries)"],
];

export const DEBUG_ENV: EnvVar = ["DEVFLOW_DEBUG", "add the stack trace to unexpected errors"];

export interface HelpFooter {
  examples: readonly string[];
  env: readonly EnvVar[];
  /** Exit codes by name (their meaning from EXIT_MEANINGS), or [code, meaning] for a command's own. */
  exits: readonly (ExitName | readonly [number, string])[];
}

/**
 * The part of a command's `--help` after its options: examples, the environment variables it
 * reads and its exit codes (one table: src/cli/exit-codes.ts). Passed to commander's addHelpText.
 */
export function helpFooter(footer: HelpFooter): string {
  const lines = ["", "Examples:", ...footer.examples.map((e) => `  $ ${e}`)];
  if (footer.env.length > 0) {
    const width = Math.max(...footer.env.map(([name]) => name.length));
    lines.push(
      "",
      "Environment:",
      ...footer.env.map(([name, meaning]) => `  ${name.padEnd(width)}  ${meaning}`),
    );
  }
  lines.push(
    "",
    "Exit codes:",
    ...footer.exits.map((exit) =>
      typeof exit === "string" ? `  ${EXIT[exit]}  ${EXIT_MEANINGS[exit]}` : `  ${exit[0]}  ${exit[1]}`,
    ),
  );
  return lines.join("\n");
}
