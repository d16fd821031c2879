import type { EffectiveConfig } from "./settings.js";

/**
 * The effective config in the shapes the existing layers take, so commands hand them over as
 * explicit options (which beat the environment and the defaults those layers still read for
 * callers without a config: tests, the playground).
 */

/** createModelGateway's / iterateLane's `modelLimits`. */
export function endpointLimits(config: EffectiveConfig): {
  timeoutMs: number;
  budgetMs: number;
  maxRetries: number;
} {
  return {
    timeoutMs: Math.round(config["model.timeout_seconds"] * 1000),
    budgetMs: Math.round(config["model.budget_seconds"] * 1000),
    maxRetries: config["model.retries"],
  };
}

export interface CommitIdentity {
  name: string;
  email: string;
}

/** The iterate lane's options (LaneOptions) the config decides. */
export function laneOptions(config: EffectiveConfig) {
  return {
    maxJudgeAttempts: config["limits.max_iterations"],
    maxEscalations: config["coder.max_escalations"],
    baseTimeoutMs: Math.round(config["coder.timeout_seconds"] * 1000),
    commandTimeoutMs: Math.round(config["tests.timeout_seconds"] * 1000),
    seamRuns: config["tests.seam_runs"],
    seamDataFolderLimit: config["tests.seam_data_folder_limit"],
    coderModel: config["coder.model"],
    commitAuthor: {
      name: config["commit.author_name"],
      email: config["commit.author_email"],
    } as CommitIdentity,
    commitHooks: config["commit.hooks"],
  };
}

/**
 * The environment the model layer reads its endpoint from (OPENAI_BASE_URL, OPENAI_API_KEY): the
 * configured base URL, and the key from the variable `model.api_key_env` names. The key itself
 * never passes through a file.
 */
export function modelEnv(config: EffectiveConfig, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  if (config["model.base_url"] !== null) out.OPENAI_BASE_URL = config["model.base_url"];
  const keyVar = config["model.api_key_env"];
  if (keyVar !== "OPENAI_API_KEY") {
    const key = env[keyVar];
    if (key === undefined) delete out.OPENAI_API_KEY;
    else out.OPENAI_API_KEY = key;
  }
  return out;
}

/** What a command hands the lane and the model gateway, from one resolved config. */
export function runSettings(config: EffectiveConfig, env: NodeJS.ProcessEnv) {
  return {
    model: config["model.name"],
    coder: config["coder.backend"],
    modelLimits: endpointLimits(config),
    maxRequestBytes: config["limits.max_request_bytes"],
    lane: laneOptions(config),
    env: modelEnv(config, env),
  };
}
