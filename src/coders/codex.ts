import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { ProcessRunResult } from "../process/types.js";
import { codexActivity } from "./cli/activity.js";
import { classifyErrorText, tail } from "./cli/classify.js";
import { createCliBackend } from "./cli/cli-backend.js";
import { endpointBase, endpointKeyAvailable, endpointKeyEnv } from "./cli/endpoint.js";
import { hasAny, pickEnv } from "./cli/env.js";
import { getNumber, getObject, getString, parseJsonObject } from "./cli/json.js";
import { fitsInArgument } from "./cli/prompt-arg.js";
import type {
  CliBackendSpec,
  CliCoderBackend,
  CliRuntimeOptions,
  Interpretation,
  OpenAiEndpoint,
  PrepareInput,
} from "./cli/types.js";
import { UsageTotals } from "./cli/usage.js";

/** `bypass` = `--dangerously-bypass-approvals-and-sandbox`, for CI containers where bwrap/Landlock cannot start. */
export type CodexSandbox = "read-only" | "workspace-write" | "danger-full-access" | "bypass";

export interface CodexOptions extends CliRuntimeOptions {
  model?: string;
  /** Default `workspace-write`: edits inside the worktree; `exec` itself never asks for approval. */
  sandbox?: CodexSandbox;
  /** Must speak the Responses API: codex removed `wire_api = "chat"` (~Feb 2026). */
  endpoint?: OpenAiEndpoint;
}

// CODEX_API_KEY is the documented key for `codex exec`; OPENAI_API_KEY is what the built-in openai
// provider reads. Both are passed because which one a given build prefers is not pinned down
// (docs/origins.md#coder-clis).
const AUTH_KEYS = ["CODEX_API_KEY", "OPENAI_API_KEY"];
const PROVIDER_ID = "devflow";

export const CODEX_INSTALL_HINT =
  "Install Codex CLI: `npm install -g @openai/codex` (or `brew install codex`).";
export const CODEX_AUTH_HINT =
  "Set CODEX_API_KEY (or OPENAI_API_KEY); devflow runs codex with its own CODEX_HOME, so a `codex login` " +
  "stored in ~/.codex is not seen. For another endpoint configure one that speaks the Responses API.";

/** Sandbox failures that leave codex exiting 0 without having run anything (codex#46246). */
const SANDBOX_FAILURE =
  /error running landlock|bwrap: |landlock.*(?:not supported|failed)|sandbox.*failed to start/i;

function tomlString(value: string): string {
  return JSON.stringify(value);
}

/** `$CODEX_HOME/config.toml` pointing codex at a Responses-API endpoint through a named provider. */
export function codexConfigToml(endpoint: OpenAiEndpoint, model: string): string {
  const keyEnv = endpointKeyEnv(endpoint);
  return [
    `model = ${tomlString(model)}`,
    `model_provider = ${tomlString(PROVIDER_ID)}`,
    "",
    `[model_providers.${PROVIDER_ID}]`,
    `name = ${tomlString(PROVIDER_ID)}`,
    `base_url = ${tomlString(endpointBase(endpoint))}`,
    ...(keyEnv === undefined ? [] : [`env_key = ${tomlString(keyEnv)}`]),
    'wire_api = "responses"',
    "",
  ].join("\n");
}

export function buildCodexArgs(
  input: Pick<PrepareInput, "model" | "worktree" | "configHome" | "prompt">,
  options: CodexOptions,
): {
  args: string[];
  stdin: string | "closed";
} {
  const args = ["exec", "--json", "-C", input.worktree];
  const sandbox = options.sandbox ?? "workspace-write";
  if (sandbox === "bypass") args.push("--dangerously-bypass-approvals-and-sandbox");
  else args.push("--sandbox", sandbox);
  args.push("--output-last-message", join(input.configHome, "last-message.txt"));
  const model = input.model ?? (options.endpoint === undefined ? options.model : undefined);
  if (model !== undefined) args.push("--model", model);
  // stdin stays closed: with an open pipe `codex exec` blocks on "Reading additional input from
  // stdin..." (codex#20919). Only a prompt too long for one argument goes on stdin (`-`), in full.
  if (fitsInArgument(input.prompt)) return { args: [...args, input.prompt], stdin: "closed" };
  return { args: [...args, "-"], stdin: input.prompt };
}

/** Folds codex's JSONL events (thread/turn/item) into the facts the result is decided from. */
export class CodexStream {
  threadId: string | null = null;
  lastAgentMessage: string | null = null;
  completedTurns = 0;
  turnFailure: string | null = null;
  /** An `error` event not followed by a completed turn (codex reports retried hiccups as errors too). */
  pendingError: string | null = null;
  sandboxFailure: string | null = null;
  readonly usage = new UsageTotals();

  push(line: string): void {
    const event = parseJsonObject(line);
    if (event === null) return;
    switch (getString(event, "type")) {
      case "thread.started":
        this.threadId = getString(event, "thread_id") ?? null;
        break;
      case "turn.completed": {
        this.completedTurns++;
        this.pendingError = null;
        const usage = getObject(event, "usage");
        this.usage.add(getNumber(usage, "input_tokens"), getNumber(usage, "output_tokens"));
        break;
      }
      case "turn.failed":
        this.turnFailure = getString(getObject(event, "error"), "message") ?? "turn failed";
        break;
      case "error":
        this.pendingError = getString(event, "message") ?? "error";
        break;
      case "item.completed":
        this.onItem(getObject(event, "item"));
        break;
    }
  }

  private onItem(item: ReturnType<typeof getObject>): void {
    const type = getString(item, "type");
    if (type === "agent_message") this.lastAgentMessage = getString(item, "text") ?? this.lastAgentMessage;
    if (type === "command_execution") {
      const output = getString(item, "aggregated_output") ?? "";
      if (SANDBOX_FAILURE.test(output)) this.sandboxFailure = tail(output, 300);
    }
  }
}

export function interpretCodex(
  stream: CodexStream,
  run: Pick<ProcessRunResult, "exitCode" | "output">,
  lastMessageFile: string | null,
): Interpretation {
  const finalMessage = stream.lastAgentMessage ?? lastMessageFile ?? "";
  const usage = stream.usage.result();
  const failure = stream.turnFailure ?? stream.pendingError;
  if (failure !== null) {
    return {
      status: classifyErrorText(failure),
      finalMessage,
      usage,
      error: `codex turn failed: ${failure}`,
    };
  }
  if (stream.sandboxFailure !== null) {
    return {
      status: "error",
      finalMessage,
      usage,
      error:
        `codex's sandbox failed to start, so its commands did not run: ${stream.sandboxFailure}. ` +
        "In an already isolated container set the codex sandbox option to 'bypass'.",
    };
  }
  if (run.exitCode !== 0) {
    const detail = tail(run.output);
    return {
      status: classifyErrorText(detail),
      finalMessage,
      usage,
      error: `codex exited with code ${run.exitCode ?? "none"}${detail ? `: ${detail}` : ""}`,
    };
  }
  if (stream.completedTurns === 0) {
    return {
      status: "error",
      finalMessage,
      usage,
      error: "codex exited 0 without a completed turn (no turn.completed event)",
    };
  }
  return { status: "ok", finalMessage, usage, error: null };
}

async function readOptional(path: string): Promise<string | null> {
  try {
    return (await readFile(path, "utf8")).trim();
  } catch {
    return null;
  }
}

export function codexSpec(options: CodexOptions = {}): CliBackendSpec {
  // A chat-completions endpoint cannot work: codex removed `wire_api = "chat"`. Reported by probe
  // and refused by run, rather than thrown here, so listing backends never fails on it.
  const chatEndpoint = options.endpoint !== undefined && options.endpoint.api !== "responses";
  const endpoint = chatEndpoint ? undefined : options.endpoint;
  return {
    name: "codex",
    activity: codexActivity,
    binary: "codex",
    ...(chatEndpoint
      ? {
          misconfiguration: {
            reason:
              'codex can only use an endpoint that speaks the OpenAI Responses API (wire_api = "chat" was removed).',
            hint:
              "Set the endpoint's api to 'responses' if the server implements /v1/responses, or use the junie, opencode " +
              "or aider backend for a chat-completions endpoint.",
          },
        }
      : {}),
    installHint: CODEX_INSTALL_HINT,
    authHint: CODEX_AUTH_HINT,
    passEnv: AUTH_KEYS,
    authConfigured: (env) =>
      endpoint !== undefined ? endpointKeyAvailable(endpoint, env) : hasAny(env, AUTH_KEYS),
    // Config, auth.json, rollouts (which can echo the environment) and AGENTS.md overrides of ~/.codex stay out.
    homeEnv: (configHome) => ({ CODEX_HOME: configHome }),
    prepare(input) {
      const { args, stdin } = buildCodexArgs(input, options);
      const env: Record<string, string> = {};
      const files = [];
      if (endpoint !== undefined) {
        files.push({
          path: join(input.configHome, "config.toml"),
          content: codexConfigToml(endpoint, input.model ?? endpoint.model),
        });
        const keyEnv = endpointKeyEnv(endpoint);
        if (keyEnv !== undefined) Object.assign(env, pickEnv(input.sourceEnv, [keyEnv]));
      }
      const stream = new CodexStream();
      const lastMessagePath = join(input.configHome, "last-message.txt");
      return {
        args,
        stdin,
        env,
        files,
        onStdoutLine: (line) => stream.push(line),
        interpret: async (run) => interpretCodex(stream, run, await readOptional(lastMessagePath)),
      };
    },
  };
}

export function createCodexBackend(options: CodexOptions = {}): CliCoderBackend {
  return createCliBackend(codexSpec(options), options);
}
