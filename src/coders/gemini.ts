import { join } from "node:path";
import type { ProcessRunResult } from "../process/types.js";
import { classifyErrorText, tail } from "./cli/classify.js";
import { createCliBackend } from "./cli/cli-backend.js";
import { hasAny } from "./cli/env.js";
import { getNumber, getObject, getString, isJsonObject, type JsonObject } from "./cli/json.js";
import { assertPromptFitsArgument } from "./cli/prompt-arg.js";
import { StdoutDocument } from "./cli/stdout-buffer.js";
import type {
  CliBackendSpec,
  CliCoderBackend,
  CliRuntimeOptions,
  Interpretation,
  PrepareInput,
  SourceEnv,
} from "./cli/types.js";
import { UsageTotals } from "./cli/usage.js";

export type GeminiApprovalMode = "yolo" | "auto_edit" | "default";

export interface GeminiOptions extends CliRuntimeOptions {
  model?: string;
  /** Default `yolo`: `auto_edit` cannot run shell commands, `default` would wait for approvals. */
  approvalMode?: GeminiApprovalMode;
  /** Written as `model.maxSessionTurns` into the run's settings; exceeding it exits 53. */
  maxTurns?: number;
}

const AUTH_KEYS = [
  "GEMINI_API_KEY",
  "GOOGLE_API_KEY",
  "GOOGLE_GENAI_USE_VERTEXAI",
  "GOOGLE_APPLICATION_CREDENTIALS",
];
const PASS_ENV = [...AUTH_KEYS, "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION", "GOOGLE_GEMINI_BASE_URL"];

export const GEMINI_INSTALL_HINT =
  "Install Gemini CLI: `npm install -g @google/gemini-cli` (or `brew install gemini-cli`).";
export const GEMINI_AUTH_HINT =
  "Set GEMINI_API_KEY, or for Vertex AI set GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_API_KEY (or " +
  "GOOGLE_APPLICATION_CREDENTIALS), GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION; devflow runs gemini with its " +
  "own GEMINI_CLI_HOME, so an interactive Google login is not seen.";

/** Documented exit codes (docs/origins.md#coder-clis): 42 input error, 53 turn limit, 55 untrusted folder. */
export const GEMINI_EXIT = { input: 42, turnLimit: 53, untrusted: 55 } as const;

export function buildGeminiArgs(
  input: Pick<PrepareInput, "model" | "prompt">,
  options: GeminiOptions,
): string[] {
  assertPromptFitsArgument("gemini", input.prompt);
  const args = [
    "-p",
    input.prompt,
    "--output-format",
    "json",
    "--approval-mode",
    options.approvalMode ?? "yolo",
  ];
  // In an untrusted folder gemini forces approval back to default and exits 55; the flag and
  // GEMINI_CLI_TRUST_WORKSPACE (set in the env) are both documented remedies, so both are used.
  args.push("--skip-trust");
  const model = input.model ?? options.model;
  if (model !== undefined) args.push("--model", model);
  return args;
}

/** `$GEMINI_CLI_HOME/.gemini/settings.json` for the run: auth type pre-selected, turn limit, no self-update. */
export function geminiSettings(env: SourceEnv, options: GeminiOptions): JsonObject {
  // disableAutoUpdate is not in the coder-CLI notes (docs/origins.md#coder-clis): an npm-installed
  // gemini updates itself otherwise, and unknown settings keys are ignored by older builds.
  const settings: JsonObject = { general: { disableAutoUpdate: true } };
  const vertex = env.GOOGLE_GENAI_USE_VERTEXAI === "true";
  // Pre-selecting the auth type skips the first-run auth dialog a fresh home would otherwise show.
  if (vertex) settings.security = { auth: { selectedType: "vertex-ai" } };
  else if (hasAny(env, ["GEMINI_API_KEY"])) settings.security = { auth: { selectedType: "gemini-api-key" } };
  if (options.maxTurns !== undefined) settings.model = { maxSessionTurns: options.maxTurns };
  return settings;
}

function geminiUsage(output: JsonObject): Interpretation["usage"] {
  const totals = new UsageTotals();
  const models = getObject(getObject(output, "stats"), "models") ?? {};
  for (const model of Object.values(models)) {
    if (!isJsonObject(model)) continue;
    const tokens = getObject(model, "tokens");
    totals.add(getNumber(tokens, "prompt"), getNumber(tokens, "candidates"));
  }
  // Gemini reports no cost (docs/origins.md#coder-clis).
  return totals.result();
}

function errorMessage(output: JsonObject | null): string | null {
  if (output === null || !("error" in output) || output.error === null || output.error === undefined)
    return null;
  const error = output.error;
  if (typeof error === "string") return error;
  if (isJsonObject(error)) return getString(error, "message") ?? JSON.stringify(error);
  return String(error);
}

export function interpretGemini(
  output: JsonObject | null,
  run: Pick<ProcessRunResult, "exitCode" | "output">,
): Interpretation {
  const finalMessage = (output !== null ? getString(output, "response") : undefined) ?? "";
  const usage = output !== null ? geminiUsage(output) : null;
  const error = errorMessage(output);
  const detail = error ?? tail(run.output);
  const exit = run.exitCode;
  if (exit === GEMINI_EXIT.turnLimit) {
    return {
      status: "turn_limit",
      finalMessage,
      usage,
      error: `gemini stopped at its session turn limit (exit 53): ${detail}`,
    };
  }
  if (exit === GEMINI_EXIT.untrusted) {
    return {
      status: "error",
      finalMessage,
      usage,
      error: `gemini refused to run in an untrusted folder (exit 55) despite --skip-trust: ${detail}`,
    };
  }
  if (exit === GEMINI_EXIT.input) {
    return { status: "error", finalMessage, usage, error: `gemini rejected its input (exit 42): ${detail}` };
  }
  if (error !== null) {
    return {
      status: classifyErrorText(error),
      finalMessage,
      usage,
      error: `gemini reported an error: ${error}`,
    };
  }
  if (exit !== 0) {
    return {
      status: classifyErrorText(detail),
      finalMessage,
      usage,
      error: `gemini exited with code ${exit ?? "none"}${detail ? `: ${detail}` : ""}`,
    };
  }
  if (output === null || getString(output, "response") === undefined) {
    return {
      status: "error",
      finalMessage,
      usage,
      error: "gemini exited 0 without a JSON result carrying a response",
    };
  }
  return { status: "ok", finalMessage, usage, error: null };
}

export function geminiSpec(options: GeminiOptions = {}): CliBackendSpec {
  return {
    name: "gemini",
    binary: "gemini",
    installHint: GEMINI_INSTALL_HINT,
    authHint: GEMINI_AUTH_HINT,
    passEnv: PASS_ENV,
    authConfigured: (env) => hasAny(env, AUTH_KEYS),
    homeEnv: (configHome) => ({
      // gemini resolves its home (~/.gemini: settings, OAuth creds, chats) from GEMINI_CLI_HOME first.
      GEMINI_CLI_HOME: configHome,
      GEMINI_CLI_TRUST_WORKSPACE: "true",
    }),
    prepare(input) {
      const stdout = new StdoutDocument();
      return {
        args: buildGeminiArgs(input, options),
        // stdin is closed: `gemini -p` appends piped stdin to the prompt and can block on it (gemini-cli#6715).
        stdin: "closed",
        env: {},
        files: [
          {
            path: join(input.configHome, ".gemini", "settings.json"),
            content: `${JSON.stringify(geminiSettings(input.sourceEnv, options), null, 2)}\n`,
          },
        ],
        onStdoutLine: (line) => stdout.push(line),
        interpret: async (run) => interpretGemini(stdout.lastObject(), run),
      };
    },
  };
}

export function createGeminiBackend(options: GeminiOptions = {}): CliCoderBackend {
  return createCliBackend(geminiSpec(options), options);
}
