import { createAiderBackend } from "./aider.js";
import { BUILTIN_CODER, createBuiltinCoder } from "./builtin/index.js";
import { createClaudeBackend } from "./claude.js";
import { CODER_ENV, coderModelFromEnv, endpointFromEnv, oneOf, positiveNumber } from "./cli/env-options.js";
import type { CliCoderBackend, SourceEnv } from "./cli/types.js";
import { createCodexBackend } from "./codex.js";
import { createGeminiBackend } from "./gemini.js";
import { createJunieBackend } from "./junie.js";
import { createOpencodeBackend } from "./opencode.js";
import { knownCoders, registerCoder } from "./registry.js";

export { DEFAULT_CODER } from "./default-coder.js";
export { knownCoders, registerCoder, resolveCoder } from "./registry.js";

/**
 * Each CLI backend built from the environment at resolve time (`DEVFLOW_CODER_*` and per-backend
 * limits, see docs/coders.md), so a changed variable applies to the next run without a restart.
 * Backends without custom-endpoint support (claude, gemini) ignore DEVFLOW_CODER_BASE_URL.
 */
const CLI_CODERS: Readonly<Record<string, (env: SourceEnv) => CliCoderBackend>> = {
  junie: (env) => {
    const endpoint = endpointFromEnv(env);
    const model = coderModelFromEnv(env);
    return createJunieBackend({ ...(endpoint ? { endpoint } : model ? { model } : {}) });
  },
  claude: (env) => {
    const permissionMode = oneOf(env, CODER_ENV.claudePermissionMode, [
      "acceptEdits",
      "bypassPermissions",
      "dontAsk",
      "auto",
      "default",
      "plan",
    ] as const);
    const maxTurns = positiveNumber(env, CODER_ENV.claudeMaxTurns, true);
    const maxBudgetUsd = positiveNumber(env, CODER_ENV.claudeMaxBudgetUsd, false);
    return createClaudeBackend({
      ...(permissionMode ? { permissionMode } : {}),
      ...(maxTurns ? { maxTurns } : {}),
      ...(maxBudgetUsd ? { maxBudgetUsd } : {}),
    });
  },
  codex: (env) => {
    const endpoint = endpointFromEnv(env);
    const model = coderModelFromEnv(env);
    const sandbox = oneOf(env, CODER_ENV.codexSandbox, [
      "read-only",
      "workspace-write",
      "danger-full-access",
      "bypass",
    ] as const);
    return createCodexBackend({
      ...(endpoint ? { endpoint } : model ? { model } : {}),
      ...(sandbox ? { sandbox } : {}),
    });
  },
  gemini: (env) => {
    const approvalMode = oneOf(env, CODER_ENV.geminiApprovalMode, ["yolo", "auto_edit", "default"] as const);
    const maxTurns = positiveNumber(env, CODER_ENV.geminiMaxTurns, true);
    return createGeminiBackend({
      ...(approvalMode ? { approvalMode } : {}),
      ...(maxTurns ? { maxTurns } : {}),
    });
  },
  opencode: (env) => {
    const endpoint = endpointFromEnv(env);
    const model = coderModelFromEnv(env);
    return createOpencodeBackend({ ...(endpoint ? { endpoint } : model ? { model } : {}) });
  },
  aider: (env) => {
    const endpoint = endpointFromEnv(env);
    const model = coderModelFromEnv(env);
    return createAiderBackend({ ...(endpoint ? { endpoint } : model ? { model } : {}) });
  },
};

export const CLI_CODER_NAMES: readonly string[] = Object.keys(CLI_CODERS);

/** Registers every CLI backend once (importing this module does it; calling again is a no-op). */
export function registerCliCoders(env: SourceEnv = process.env): void {
  const known = new Set(knownCoders());
  for (const [name, create] of Object.entries(CLI_CODERS)) {
    if (!known.has(name)) registerCoder(name, () => create(env));
  }
}

registerCliCoders();

// The builtin coder is built per run from the run's model gateway (deps.models), so its usage
// lands in the run's ledger and replay cassettes answer it under the "coder" role.
if (!knownCoders().includes(BUILTIN_CODER)) {
  registerCoder(BUILTIN_CODER, (deps) =>
    createBuiltinCoder(deps.models === undefined ? {} : { models: deps.models }),
  );
}
