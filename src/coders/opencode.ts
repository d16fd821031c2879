import { join } from "node:path";
import type { ProcessRunResult } from "../process/types.js";
import { opencodeActivity } from "./cli/activity.js";
import { classifyErrorText, statusFromHttp, tail } from "./cli/classify.js";
import { createCliBackend } from "./cli/cli-backend.js";
import { endpointBase, endpointKeyAvailable, endpointKeyEnv } from "./cli/endpoint.js";
import { hasAny, pickEnv } from "./cli/env.js";
import { getNumber, getObject, getString, type JsonObject, parseJsonObject } from "./cli/json.js";
import { assertPromptFitsArgument } from "./cli/prompt-arg.js";
import type {
  CliBackendSpec,
  CliCoderBackend,
  CliRuntimeOptions,
  Interpretation,
  OpenAiEndpoint,
  PrepareInput,
} from "./cli/types.js";
import { UsageTotals } from "./cli/usage.js";
import type { CoderFailureStatus } from "./contract.js";

export interface OpencodeOptions extends CliRuntimeOptions {
  /** `provider/model`, e.g. `anthropic/claude-sonnet-4-5`. */
  model?: string;
  /** `--agent`; the default agent builds (the `plan` agent is read-only). */
  agent?: string;
  /** A custom OpenAI-compatible endpoint, configured as provider `devflow` through @ai-sdk/openai-compatible. */
  endpoint?: OpenAiEndpoint;
}

const AUTH_KEYS = [
  "ANTHROPIC_API_KEY",
  "OPENAI_API_KEY",
  "OPENROUTER_API_KEY",
  "GOOGLE_GENERATIVE_AI_API_KEY",
  "GROQ_API_KEY",
  "DEEPSEEK_API_KEY",
  "XAI_API_KEY",
];
const PROVIDER_ID = "devflow";

export const OPENCODE_INSTALL_HINT =
  "Install opencode (V1): `npm install -g opencode-ai` (or `curl -fsSL https://opencode.ai/install | bash`).";
export const OPENCODE_AUTH_HINT =
  "Set the key of the provider you use (ANTHROPIC_API_KEY, OPENAI_API_KEY, OPENROUTER_API_KEY, ...) or configure " +
  "a custom OpenAI-compatible endpoint for opencode; devflow runs opencode with its own config and data dirs, so " +
  "`opencode auth login` credentials are not seen.";

/**
 * The run's whole config, passed inline. Any permission that resolves to "ask" hangs `opencode run`
 * forever (opencode#36762), so every class is explicit: everything allowed inside the worktree,
 * nothing outside it ("last matching rule wins", so `*` comes first).
 */
export function opencodeConfig(endpoint: OpenAiEndpoint | undefined, model: string | undefined): JsonObject {
  const config: JsonObject = {
    $schema: "https://opencode.ai/config.json",
    permission: { "*": "allow", external_directory: "deny" },
    autoupdate: false,
    share: "disabled",
  };
  if (endpoint !== undefined) {
    const keyEnv = endpointKeyEnv(endpoint);
    config.provider = {
      [PROVIDER_ID]: {
        npm: "@ai-sdk/openai-compatible",
        name: PROVIDER_ID,
        options: {
          baseURL: endpointBase(endpoint),
          ...(keyEnv === undefined ? {} : { apiKey: `{env:${keyEnv}}` }),
        },
        models: { [model ?? endpoint.model]: {} },
      },
    };
  }
  return config;
}

export function buildOpencodeArgs(
  input: Pick<PrepareInput, "model" | "worktree" | "prompt">,
  options: OpencodeOptions,
): string[] {
  assertPromptFitsArgument("opencode", input.prompt);
  // --dir as well as cwd: inside a linked worktree opencode otherwise resolves the main repo (opencode#2445).
  // --auto approves whatever is not denied, a second guard against a permission left at "ask".
  const args = ["run", "--format", "json", "--dir", input.worktree, "--auto"];
  const model =
    options.endpoint !== undefined
      ? `${PROVIDER_ID}/${input.model ?? options.endpoint.model}`
      : (input.model ?? options.model);
  if (model !== undefined) args.push("--model", model);
  if (options.agent !== undefined) args.push("--agent", options.agent);
  args.push(input.prompt);
  return args;
}

/** Folds `--format json` events; there is no terminal result event, so the facts are accumulated. */
export class OpencodeStream {
  readonly texts = new Map<string, string>();
  private lastTextId: string | null = null;
  readonly errors: Array<{ message: string; status: CoderFailureStatus }> = [];
  readonly usage = new UsageTotals();
  events = 0;

  push(line: string): void {
    const event = parseJsonObject(line);
    if (event === null) return;
    this.events++;
    const part = getObject(event, "part");
    switch (getString(event, "type")) {
      case "text": {
        // A part can be re-emitted as it grows; the id keeps the latest version of each.
        const id = getString(part, "id") ?? `text-${this.texts.size}`;
        this.texts.set(id, getString(part, "text") ?? "");
        this.lastTextId = id;
        break;
      }
      case "step_finish": {
        const tokens = getObject(part, "tokens");
        this.usage.add(getNumber(tokens, "input"), getNumber(tokens, "output"), getNumber(part, "cost"));
        break;
      }
      case "error":
        this.errors.push(describeError(getObject(event, "error")));
        break;
    }
  }

  finalText(): string {
    return this.lastTextId === null ? "" : (this.texts.get(this.lastTextId) ?? "");
  }
}

function describeError(error: JsonObject | undefined): { message: string; status: CoderFailureStatus } {
  const name = getString(error, "name") ?? "Error";
  const data = getObject(error, "data");
  const message = `${name}: ${getString(data, "message") ?? JSON.stringify(data ?? {})}`;
  if (name === "ProviderAuthError") return { message, status: "auth" };
  return { message, status: statusFromHttp(getNumber(data, "statusCode")) ?? classifyErrorText(message) };
}

export function interpretOpencode(
  stream: OpencodeStream,
  run: Pick<ProcessRunResult, "exitCode" | "output">,
): Interpretation {
  const finalMessage = stream.finalText();
  const usage = stream.usage.result();
  const firstError = stream.errors[0];
  if (firstError !== undefined) {
    const all = stream.errors.map((error) => error.message).join("; ");
    return { status: firstError.status, finalMessage, usage, error: `opencode reported an error: ${all}` };
  }
  if (run.exitCode !== 0) {
    const detail = tail(run.output);
    return {
      status: classifyErrorText(detail),
      finalMessage,
      usage,
      error: `opencode exited with code ${run.exitCode ?? "none"}${detail ? `: ${detail}` : ""}`,
    };
  }
  if (finalMessage.trim() === "") {
    return {
      status: "error",
      finalMessage,
      usage,
      error:
        "opencode exited 0 with an empty final message; it ends this way after auto-rejecting a permission " +
        "(opencode#44267), so the run is not counted as a success",
    };
  }
  return { status: "ok", finalMessage, usage, error: null };
}

export function opencodeSpec(options: OpencodeOptions = {}): CliBackendSpec {
  const endpoint = options.endpoint;
  return {
    name: "opencode",
    activity: opencodeActivity,
    binary: "opencode",
    installHint: OPENCODE_INSTALL_HINT,
    authHint: OPENCODE_AUTH_HINT,
    passEnv: AUTH_KEYS,
    authConfigured: (env) =>
      endpoint !== undefined ? endpointKeyAvailable(endpoint, env) : hasAny(env, AUTH_KEYS),
    homeEnv: (configHome) => ({
      // Config, auth.json and session storage of the user stay out; XDG_CACHE_HOME is left alone on
      // purpose: opencode installs provider packages there, and a fresh cache per run would refetch them.
      XDG_CONFIG_HOME: join(configHome, "config"),
      XDG_DATA_HOME: join(configHome, "data"),
      XDG_STATE_HOME: join(configHome, "state"),
    }),
    prepare(input) {
      const env: Record<string, string> = {
        OPENCODE_CONFIG_CONTENT: JSON.stringify(opencodeConfig(endpoint, input.model)),
        // Otherwise opencode also reads ~/.claude/CLAUDE.md into the prompt.
        OPENCODE_DISABLE_CLAUDE_CODE_PROMPT: "1",
        // Belt and braces with `autoupdate: false` (the variable is not in the coder-CLI notes,
        // docs/origins.md#coder-clis; unknown ones are inert).
        OPENCODE_DISABLE_AUTOUPDATE: "1",
      };
      const keyEnv = endpoint === undefined ? undefined : endpointKeyEnv(endpoint);
      if (keyEnv !== undefined) Object.assign(env, pickEnv(input.sourceEnv, [keyEnv]));
      const stream = new OpencodeStream();
      return {
        args: buildOpencodeArgs(input, options),
        stdin: "closed",
        env,
        files: [],
        onStdoutLine: (line) => stream.push(line),
        interpret: async (run) => interpretOpencode(stream, run),
      };
    },
  };
}

export function createOpencodeBackend(options: OpencodeOptions = {}): CliCoderBackend {
  return createCliBackend(opencodeSpec(options), options);
}
