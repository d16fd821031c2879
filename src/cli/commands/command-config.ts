import type { Command } from "commander";
import type { ConfigKey, FlagValue, ResolvedConfig } from "../../config/index.js";

/**
 * Which option of a command sets which config key (commander's attribute name → key). Commander
 * keeps showing the built-in defaults in --help; only a flag the user typed (value source "cli")
 * beats the config files and the environment (ADR 0047).
 */
const FLAG_KEYS: Record<string, ConfigKey> = {
  model: "model.name",
  coder: "coder.backend",
  coderModel: "coder.model",
  timeout: "coder.timeout_seconds",
  maxEscalations: "coder.max_escalations",
  maxIterations: "limits.max_iterations",
  maxRequestBytes: "limits.max_request_bytes",
  seamRuns: "tests.seam_runs",
  testTimeout: "tests.timeout_seconds",
  modelTimeout: "model.timeout_seconds",
  modelBudget: "model.budget_seconds",
  modelRetries: "model.retries",
};

/**
 * The effective config of one command run: resolved once, from the repository the command works
 * on (a local path; null for a git URL, whose config is never read) and the flags typed.
 * `ignore` names options whose meaning differs on this command (doctor's --timeout).
 */
export async function commandConfig(
  command: Command,
  repo: string | null,
  ignore: readonly string[] = [],
): Promise<ResolvedConfig> {
  const { resolveConfig } = await import("../../config/index.js");
  const flags: Partial<Record<ConfigKey, FlagValue>> = {};
  for (const option of command.options) {
    const attribute = option.attributeName();
    const key = FLAG_KEYS[attribute];
    if (!key || ignore.includes(attribute) || command.getOptionValueSource(attribute) !== "cli") continue;
    flags[key] = { value: command.getOptionValue(attribute), flag: option.long ?? option.flags };
  }
  return resolveConfig({ env: process.env, repo, flags });
}
