import { join } from "node:path";
import type { ProcessRunResult } from "../process/types.js";
import { classifyErrorText, tail } from "./cli/classify.js";
import { createCliBackend } from "./cli/cli-backend.js";
import { endpointKeyAvailable, endpointKeyEnv, endpointUrl } from "./cli/endpoint.js";
import { hasAny, pickEnv } from "./cli/env.js";
import { getArray, getNumber, getString, getStrings, isJsonObject, type JsonObject } from "./cli/json.js";
import { type OutputFileRead, readJsonOutputFile } from "./cli/output-file.js";
import { StdoutDocument } from "./cli/stdout-buffer.js";
import type {
  CliBackendSpec,
  CliCoderBackend,
  CliRuntimeOptions,
  Interpretation,
  OpenAiEndpoint,
  PreparedInvocation,
  PrepareInput,
  SourceEnv,
} from "./cli/types.js";
import { UsageTotals } from "./cli/usage.js";

export interface JunieOptions extends CliRuntimeOptions {
  /** Model when the request names none: an id, an alias (`sonnet`, `gpt`, ...) or `custom:<profile>`. */
  model?: string;
  /** BYOK provider for `--provider`; inferred when exactly one `JUNIE_<PROVIDER>_API_KEY` is set. */
  provider?: string;
  /** Custom OpenAI-compatible endpoint, written as a model profile into the per-run JUNIE_HOME. */
  endpoint?: OpenAiEndpoint;
}

/** BYOK variables Junie documents, with the `--provider` value each implies (docs/origins.md#coder-clis). */
const BYOK_KEYS: ReadonlyArray<readonly [string, string]> = [
  ["JUNIE_OPENAI_API_KEY", "openai"],
  ["JUNIE_ANTHROPIC_API_KEY", "anthropic"],
  ["JUNIE_GOOGLE_API_KEY", "google"],
  ["JUNIE_GROK_API_KEY", "xai"],
  ["JUNIE_OPENROUTER_API_KEY", "openrouter"],
];
const LITELLM_KEYS = ["JUNIE_LITELLM_URL", "JUNIE_LITELLM_API_KEY"] as const;
const KEY_NAMES = ["JUNIE_API_KEY", ...BYOK_KEYS.map(([name]) => name)];
const PASS_ENV = [
  ...KEY_NAMES,
  ...LITELLM_KEYS,
  // A pinned build (`JUNIE_VERSION`) and a JVM heap bound are the user's choice, not state.
  "JUNIE_VERSION",
  "JAVA_TOOL_OPTIONS",
];
const PROFILE_ID = "devflow";

export const JUNIE_INSTALL_HINT =
  "Install Junie: `curl -fsSL https://junie.jetbrains.com/install.sh | bash` (or `brew tap jetbrains-junie/junie " +
  "&& brew install junie`), then make sure ~/.local/bin is on PATH. `npm install -g @jetbrains/junie` also works " +
  "but downloads ~425 MB from github.com in its postinstall.";
export const JUNIE_AUTH_HINT =
  "Set JUNIE_API_KEY (create one at https://junie.jetbrains.com/cli), or a provider key: JUNIE_OPENAI_API_KEY, " +
  "JUNIE_ANTHROPIC_API_KEY, JUNIE_GOOGLE_API_KEY, JUNIE_GROK_API_KEY, JUNIE_OPENROUTER_API_KEY, or " +
  "JUNIE_LITELLM_URL + JUNIE_LITELLM_API_KEY; or configure a custom OpenAI-compatible endpoint for junie.";

function litellmConfigured(env: SourceEnv): boolean {
  return LITELLM_KEYS.every((name) => hasAny(env, [name]));
}

/** `--provider` for BYOK: explicit, else the single provider whose key is set (ambiguous → let Junie pick). */
export function inferJunieProvider(env: SourceEnv, explicit: string | undefined): string | undefined {
  if (explicit !== undefined) return explicit;
  if (hasAny(env, ["JUNIE_API_KEY"])) return undefined;
  const providers = BYOK_KEYS.filter(([name]) => hasAny(env, [name])).map(([, provider]) => provider);
  if (litellmConfigured(env)) providers.push("litellm");
  return providers.length === 1 ? providers[0] : undefined;
}

/** The custom model profile: `apiKey` is a `${VAR}` reference Junie resolves, so no key lands on disk. */
export function junieModelProfile(endpoint: OpenAiEndpoint, model: string): JsonObject {
  const apiKeyEnv = endpointKeyEnv(endpoint);
  return {
    id: model,
    // Junie appends no path to baseUrl: it must be the full chat-completions or responses URL.
    baseUrl: endpointUrl(endpoint),
    apiType: endpoint.api === "responses" ? "OpenAIResponses" : "OpenAICompletion",
    ...(apiKeyEnv === undefined ? {} : { apiKey: `\${${apiKeyEnv}}` }),
  };
}

export function buildJunieInvocation(
  input: PrepareInput,
  options: JunieOptions,
): Omit<PreparedInvocation, "onStdoutLine" | "interpret"> {
  const { configHome, worktree, sourceEnv } = input;
  const outputFile = join(configHome, "junie-output.json");
  const configFile = join(configHome, "config.json");
  const files = [
    // First launch asks about anonymous statistics, which stalls an unattended run
    // (Harbor, docs/origins.md#coder-clis).
    {
      path: join(configHome, "settings.json"),
      content: `${JSON.stringify({ shareAnonymousStatistics: false })}\n`,
    },
    // brave: sensitive actions run without an approval nobody could give. Whether `--brave` works
    // headless is disputed (docs/origins.md#coder-clis), so it is set through the documented config
    // file instead. The config's "auto-update" key is only third-party-sourced; updates are off
    // through the env instead.
    { path: configFile, content: `${JSON.stringify({ brave: true })}\n` },
  ];
  const args = [
    `--project=${worktree}`,
    `--cache-dir=${join(configHome, "cache")}`,
    "--output-format=json",
    "--input-format=json",
    `--json-output-file=${outputFile}`,
    `--config-location=${configFile}`,
  ];
  const env: Record<string, string> = {};
  const endpoint = options.endpoint;
  if (endpoint !== undefined) {
    const model = input.model ?? endpoint.model;
    files.push({
      path: join(configHome, "models", `${PROFILE_ID}.json`),
      content: `${JSON.stringify(junieModelProfile(endpoint, model), null, 2)}\n`,
    });
    args.push(`--model=custom:${PROFILE_ID}`);
    const keyEnv = endpointKeyEnv(endpoint);
    if (keyEnv !== undefined) Object.assign(env, pickEnv(sourceEnv, [keyEnv]));
  } else {
    const model = input.model ?? options.model;
    if (model !== undefined) args.push(`--model=${model}`);
    const provider = inferJunieProvider(sourceEnv, options.provider);
    if (provider !== undefined) args.push(`--provider=${provider}`);
  }
  return {
    args,
    // The JetBrains GitHub Action's contract: the task JSON on stdin (no ARG_MAX limit), then EOF.
    stdin: `${JSON.stringify({ task: input.prompt })}\n`,
    env,
    files,
  };
}

function junieUsage(output: JsonObject): Interpretation["usage"] {
  const totals = new UsageTotals();
  // Several models share a run (primary + a "faster" helper), so llmUsage[] is summed. Whether
  // inputTokens already includes cacheInputTokens is undocumented; only inputTokens is counted.
  // The unit of `cost` is undocumented too; USD is the likely one [uncertain, docs/origins.md#coder-clis].
  for (const entry of getArray(output, "llmUsage") ?? []) {
    if (!isJsonObject(entry)) continue;
    totals.add(getNumber(entry, "inputTokens"), getNumber(entry, "outputTokens"), getNumber(entry, "cost"));
  }
  return totals.result();
}

/** Reads Junie's CliOutput the way JetBrains' own action does (handle-results.ts), plus the exit code. */
export function interpretJunieOutput(
  read: OutputFileRead,
  run: Pick<ProcessRunResult, "exitCode" | "output">,
): Interpretation {
  const exit = run.exitCode;
  if (read.kind !== "ok") {
    const why =
      read.kind === "missing"
        ? "wrote no JSON output file"
        : read.kind === "too_large"
          ? `wrote a ${read.bytes}-byte output file, above the size devflow reads`
          : `wrote an output file that is not a JSON object: ${read.excerpt}`;
    const detail = tail(run.output);
    return {
      status: exit === 0 ? "error" : classifyErrorText(detail),
      finalMessage: "",
      usage: null,
      error: `junie ${why} (exit code ${exit ?? "none"})${detail ? `: ${detail}` : ""}`,
    };
  }
  const output = read.value;
  const result = getString(output, "result") ?? "";
  const errors = getStrings(output, "errors");
  const usage = junieUsage(output);
  if (errors.length > 0) {
    const text = errors.join("; ");
    return {
      status: classifyErrorText(text),
      finalMessage: result,
      usage,
      error: `junie reported errors: ${text}`,
    };
  }
  if (result.trim() === "" || result.trim() === "Empty") {
    return { status: "error", finalMessage: result, usage, error: "junie finished with an empty result" };
  }
  if (exit !== 0) {
    return {
      status: classifyErrorText(tail(run.output)),
      finalMessage: result,
      usage,
      error: `junie exited with code ${exit ?? "none"} although its output reported a result`,
    };
  }
  return { status: "ok", finalMessage: result, usage, error: null };
}

export function junieSpec(options: JunieOptions = {}): CliBackendSpec {
  return {
    name: "junie",
    binary: "junie",
    installHint: JUNIE_INSTALL_HINT,
    authHint: JUNIE_AUTH_HINT,
    passEnv: PASS_ENV,
    authConfigured: (env) =>
      options.endpoint !== undefined
        ? endpointKeyAvailable(options.endpoint, env)
        : hasAny(env, KEY_NAMES) || litellmConfigured(env),
    homeEnv: (configHome) => ({
      // JUNIE_HOME relocates ~/.junie: config, sessions (which may hold the agent's env), logs, credentials.
      JUNIE_HOME: configHome,
      // The shim and binary honour this; `--skip-update-check` is only third-party-sourced, and an
      // unknown flag would fail every run, so the documented variable is used instead (docs/origins.md#coder-clis).
      JUNIE_SKIP_UPDATE_CHECK: "1",
      JUNIE_SHARE_ANONYMOUS_STATISTICS: "false",
    }),
    prepare(input) {
      const base = buildJunieInvocation(input, options);
      const outputFile = join(input.configHome, "junie-output.json");
      // Whether stdout also carries the JSON when --json-output-file is set is uncertain
      // (docs/origins.md#coder-clis): the file is read first, stdout is the fallback.
      const stdout = new StdoutDocument();
      return {
        ...base,
        onStdoutLine: (line) => stdout.push(line),
        async interpret(run) {
          let read = await readJsonOutputFile(outputFile);
          if (read.kind === "missing") {
            const fromStdout = stdout.lastObject();
            if (fromStdout !== null && ("result" in fromStdout || "errors" in fromStdout)) {
              read = { kind: "ok", value: fromStdout };
            }
          }
          return interpretJunieOutput(read, run);
        },
      };
    },
  };
}

export function createJunieBackend(options: JunieOptions = {}): CliCoderBackend {
  return createCliBackend(junieSpec(options), options);
}
