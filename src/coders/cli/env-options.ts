import { type CoderUnavailableError, coderUnavailableError } from "../contract.js";
import type { OpenAiEndpoint, SourceEnv } from "./types.js";

/**
 * How a user configures the CLI backends without a config file: `DEVFLOW_CODER_*` variables shared
 * by every backend that can use them, plus a few per-backend limits. Read when a backend is resolved,
 * so a bad value fails before any work with the variable named.
 */
export const CODER_ENV = {
  baseUrl: "DEVFLOW_CODER_BASE_URL",
  model: "DEVFLOW_CODER_MODEL",
  apiKeyEnv: "DEVFLOW_CODER_API_KEY_ENV",
  api: "DEVFLOW_CODER_API",
  claudePermissionMode: "DEVFLOW_CLAUDE_PERMISSION_MODE",
  claudeMaxTurns: "DEVFLOW_CLAUDE_MAX_TURNS",
  claudeMaxBudgetUsd: "DEVFLOW_CLAUDE_MAX_BUDGET_USD",
  codexSandbox: "DEVFLOW_CODEX_SANDBOX",
  geminiApprovalMode: "DEVFLOW_GEMINI_APPROVAL_MODE",
  geminiMaxTurns: "DEVFLOW_GEMINI_MAX_TURNS",
} as const;

function value(env: SourceEnv, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw === undefined || raw === "" ? undefined : raw;
}

function invalid(name: string, raw: string, expected: string): CoderUnavailableError {
  return coderUnavailableError(
    "CODER_MISCONFIGURED",
    `${name}=${JSON.stringify(raw)} is not valid: expected ${expected}.`,
    `Fix or unset ${name}.`,
  );
}

export function oneOf<T extends string>(env: SourceEnv, name: string, allowed: readonly T[]): T | undefined {
  const raw = value(env, name);
  if (raw === undefined) return undefined;
  const match = allowed.find((candidate) => candidate === raw);
  if (match === undefined) throw invalid(name, raw, `one of ${allowed.join(", ")}`);
  return match;
}

export function positiveNumber(env: SourceEnv, name: string, integer: boolean): number | undefined {
  const raw = value(env, name);
  if (raw === undefined) return undefined;
  const parsed = Number(raw);
  if (!Number.isFinite(parsed) || parsed <= 0 || (integer && !Number.isInteger(parsed))) {
    throw invalid(name, raw, integer ? "a positive whole number" : "a positive number");
  }
  return parsed;
}

/** The default model of the CLI backends (a request's model still wins). */
export function coderModelFromEnv(env: SourceEnv): string | undefined {
  return value(env, CODER_ENV.model);
}

/**
 * A custom OpenAI-compatible endpoint for the backends that support one (junie, codex, opencode,
 * aider), or undefined. DEVFLOW_CODER_MODEL is required with it: the endpoint's model id.
 */
export function endpointFromEnv(env: SourceEnv): OpenAiEndpoint | undefined {
  const baseUrl = value(env, CODER_ENV.baseUrl);
  if (baseUrl === undefined) return undefined;
  if (!/^https?:\/\/[^\s/]+/.test(baseUrl))
    throw invalid(CODER_ENV.baseUrl, baseUrl, "an http(s) URL such as http://127.0.0.1:8080/v1");
  const model = value(env, CODER_ENV.model);
  if (model === undefined) {
    throw coderUnavailableError(
      "CODER_MISCONFIGURED",
      `${CODER_ENV.baseUrl} is set but ${CODER_ENV.model} is not: the coder needs the model id the endpoint serves.`,
      `Set ${CODER_ENV.model} (e.g. qwen2.5-coder) or unset ${CODER_ENV.baseUrl}.`,
    );
  }
  const apiKeyEnv = value(env, CODER_ENV.apiKeyEnv);
  if (apiKeyEnv !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(apiKeyEnv)) {
    throw invalid(
      CODER_ENV.apiKeyEnv,
      apiKeyEnv,
      "the NAME of the variable holding the key (not the key itself)",
    );
  }
  const api = oneOf(env, CODER_ENV.api, ["chat", "responses"] as const);
  return {
    baseUrl,
    model,
    ...(apiKeyEnv !== undefined ? { apiKeyEnv } : {}),
    ...(api !== undefined ? { api } : {}),
  };
}
