import type { ProcessRunResult } from "../process/types.js";
import { claudeActivity } from "./cli/activity.js";
import { classifyErrorText, statusFromHttp, tail } from "./cli/classify.js";
import { createCliBackend } from "./cli/cli-backend.js";
import { hasAny } from "./cli/env.js";
import {
  getArray,
  getBoolean,
  getNumber,
  getObject,
  getString,
  getStrings,
  isJsonObject,
  type JsonObject,
  parseJsonObject,
} from "./cli/json.js";
import type {
  CliBackendSpec,
  CliCoderBackend,
  CliRuntimeOptions,
  Interpretation,
  PrepareInput,
} from "./cli/types.js";
import { UsageTotals } from "./cli/usage.js";
import type { CoderFailureStatus } from "./contract.js";

export type ClaudePermissionMode =
  | "acceptEdits"
  | "bypassPermissions"
  | "dontAsk"
  | "auto"
  | "default"
  | "plan";

export interface ClaudeOptions extends CliRuntimeOptions {
  model?: string;
  /** `acceptEdits` (default) edits without asking; tools outside `allowedTools` are denied, never prompted, in -p. */
  permissionMode?: ClaudePermissionMode;
  /** `--allowedTools`, e.g. ["Bash(npm test:*)", "Bash(git diff:*)"]. */
  allowedTools?: string[];
  maxTurns?: number;
  maxBudgetUsd?: number;
}

const AUTH_KEYS = [
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "CLAUDE_CODE_OAUTH_TOKEN",
  "CLAUDE_CODE_USE_BEDROCK",
  "CLAUDE_CODE_USE_VERTEX",
];
const PASS_ENV = [
  ...AUTH_KEYS,
  "ANTHROPIC_BASE_URL",
  "ANTHROPIC_MODEL",
  "API_TIMEOUT_MS",
  // Bedrock / Vertex credentials, used only when the matching CLAUDE_CODE_USE_* is set.
  "AWS_REGION",
  "AWS_PROFILE",
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "ANTHROPIC_VERTEX_PROJECT_ID",
  "CLOUD_ML_REGION",
  "GOOGLE_APPLICATION_CREDENTIALS",
];

export const CLAUDE_INSTALL_HINT =
  "Install Claude Code: `npm install -g @anthropic-ai/claude-code` (Node >= 22 recommended) or " +
  "`curl -fsSL https://claude.ai/install.sh | bash`.";
export const CLAUDE_AUTH_HINT =
  "Set ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, or CLAUDE_CODE_OAUTH_TOKEN (run `claude setup-token` to get one " +
  "for a subscription); devflow runs claude with its own CLAUDE_CONFIG_DIR, so an interactive `claude` login is not seen.";

export function buildClaudeArgs(input: Pick<PrepareInput, "model">, options: ClaudeOptions): string[] {
  const args = ["-p", "--output-format", "stream-json", "--verbose"];
  args.push("--permission-mode", options.permissionMode ?? "acceptEdits");
  if (options.allowedTools !== undefined && options.allowedTools.length > 0) {
    args.push("--allowedTools", options.allowedTools.join(","));
  }
  const model = input.model ?? options.model;
  if (model !== undefined) args.push("--model", model);
  if (options.maxTurns !== undefined) args.push("--max-turns", String(options.maxTurns));
  if (options.maxBudgetUsd !== undefined) args.push("--max-budget-usd", String(options.maxBudgetUsd));
  return args;
}

/** Running as root, bypass mode refuses to start unless IS_SANDBOX=1 (claude-code#3490). */
function sandboxEnv(options: ClaudeOptions): Record<string, string> {
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  return options.permissionMode === "bypassPermissions" && isRoot ? { IS_SANDBOX: "1" } : {};
}

/** Folds the stream-json events into what the result needs: the last `result` event and assistant text. */
export class ClaudeStream {
  result: JsonObject | null = null;
  lastAssistantText = "";

  push(line: string): void {
    const event = parseJsonObject(line);
    if (event === null) return;
    const type = getString(event, "type");
    if (type === "result") this.result = event;
    else if (type === "assistant") {
      const content = getArray(getObject(event, "message"), "content") ?? [];
      const texts = content
        .filter(isJsonObject)
        .filter((part) => getString(part, "type") === "text")
        .map((part) => getString(part, "text") ?? "");
      if (texts.length > 0) this.lastAssistantText = texts.join("\n");
    }
  }
}

function claudeUsage(result: JsonObject): Interpretation["usage"] {
  const usage = getObject(result, "usage");
  const totals = new UsageTotals();
  // Anthropic's input_tokens excludes cache reads/writes; all three are input the run consumed.
  const input =
    (getNumber(usage, "input_tokens") ?? 0) +
    (getNumber(usage, "cache_read_input_tokens") ?? 0) +
    (getNumber(usage, "cache_creation_input_tokens") ?? 0);
  totals.add(
    usage === undefined ? undefined : input,
    getNumber(usage, "output_tokens"),
    getNumber(result, "total_cost_usd"),
  );
  return totals.result();
}

function failureStatus(result: JsonObject): CoderFailureStatus {
  const subtype = getString(result, "subtype");
  if (subtype === "error_max_turns" || getString(result, "terminal_reason") === "max_turns")
    return "turn_limit";
  if (subtype === "error_max_budget_usd") return "budget";
  const http = statusFromHttp(getNumber(result, "api_error_status"));
  if (http !== null) return http;
  return classifyErrorText([getString(result, "result") ?? "", ...getStrings(result, "errors")].join("\n"));
}

/** `is_error` decides, not `subtype`: a failed API call can arrive as subtype "success" with is_error true. */
export function interpretClaude(
  stream: ClaudeStream,
  run: Pick<ProcessRunResult, "exitCode" | "output">,
): Interpretation {
  // One report has Claude 2.x writing its JSON to stderr [uncertain, docs/origins.md#coder-clis]:
  // fall back to the combined output.
  let result = stream.result;
  if (result === null) {
    for (const line of run.output.split("\n").reverse()) {
      const event = parseJsonObject(line);
      if (event !== null && getString(event, "type") === "result") {
        result = event;
        break;
      }
    }
  }
  if (result === null) {
    const detail = tail(run.output);
    return {
      status: classifyErrorText(detail),
      finalMessage: stream.lastAssistantText,
      usage: null,
      error: `claude ended without a result event (exit code ${run.exitCode ?? "none"})${detail ? `: ${detail}` : ""}`,
    };
  }
  const finalMessage = getString(result, "result") ?? stream.lastAssistantText;
  const usage = claudeUsage(result);
  const isError = getBoolean(result, "is_error") === true;
  const subtype = getString(result, "subtype") ?? "unknown";
  if (isError || subtype !== "success") {
    const errors = getStrings(result, "errors");
    const detail = errors.length > 0 ? errors.join("; ") : tail(finalMessage, 400);
    return {
      status: failureStatus(result),
      finalMessage,
      usage,
      error: `claude failed (${subtype}): ${detail}`,
    };
  }
  if (run.exitCode !== 0) {
    return {
      status: "error",
      finalMessage,
      usage,
      error: `claude exited with code ${run.exitCode ?? "none"} although its result reported success`,
    };
  }
  return { status: "ok", finalMessage, usage, error: null };
}

export function claudeSpec(options: ClaudeOptions = {}): CliBackendSpec {
  return {
    name: "claude",
    activity: claudeActivity,
    binary: "claude",
    installHint: CLAUDE_INSTALL_HINT,
    authHint: CLAUDE_AUTH_HINT,
    passEnv: PASS_ENV,
    authConfigured: (env) => hasAny(env, AUTH_KEYS),
    // Settings, hooks, MCP servers, memory and transcripts of the user's ~/.claude stay out of the run.
    homeEnv: (configHome) => ({ CLAUDE_CONFIG_DIR: configHome }),
    prepare(input) {
      const stream = new ClaudeStream();
      return {
        args: buildClaudeArgs(input, options),
        // The prompt goes on stdin (no ARG_MAX limit, not visible in `ps`), then EOF: `claude -p`
        // waits forever on a pipe that is never closed (vm0#1316).
        stdin: input.prompt,
        env: sandboxEnv(options),
        files: [],
        onStdoutLine: (line) => stream.push(line),
        interpret: async (run) => interpretClaude(stream, run),
      };
    },
  };
}

export function createClaudeBackend(options: ClaudeOptions = {}): CliCoderBackend {
  return createCliBackend(claudeSpec(options), options);
}
