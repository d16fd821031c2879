import { existsSync } from "node:fs";
import { join } from "node:path";
import type { ProcessRunResult } from "../process/types.js";
import { classifyErrorText, tail } from "./cli/classify.js";
import { createCliBackend } from "./cli/cli-backend.js";
import { endpointBase, endpointKeyAvailable, endpointKeyEnv } from "./cli/endpoint.js";
import { hasAny, pickEnv } from "./cli/env.js";
import type {
  CliBackendSpec,
  CliCoderBackend,
  CliRuntimeOptions,
  Interpretation,
  OpenAiEndpoint,
  PrepareInput,
} from "./cli/types.js";
import { UsageTotals } from "./cli/usage.js";

export interface AiderOptions extends CliRuntimeOptions {
  /** aider model name, e.g. `sonnet`, `gpt-4.1`, `openrouter/...`. */
  model?: string;
  /** A custom OpenAI-compatible endpoint (`OPENAI_API_BASE` + `--model openai/<id>`). */
  endpoint?: OpenAiEndpoint;
  /** Repository files passed as read-only context with `--read` when they exist (aider reads none by itself). */
  readFiles?: string[];
}

const AUTH_KEYS = [
  "OPENAI_API_KEY",
  "ANTHROPIC_API_KEY",
  "GEMINI_API_KEY",
  "OPENROUTER_API_KEY",
  "DEEPSEEK_API_KEY",
  "GROQ_API_KEY",
  "XAI_API_KEY",
];
const PASS_ENV = [...AUTH_KEYS, "OPENAI_API_BASE"];
const DEFAULT_READ_FILES = ["AGENTS.md", "CONVENTIONS.md"];

export const AIDER_INSTALL_HINT =
  "Install aider (from PyPI, not npm): `python -m pip install aider-install && aider-install` (or `pipx install aider-chat`).";
export const AIDER_AUTH_HINT =
  "Set the key of the provider you use (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, OPENROUTER_API_KEY, ...), " +
  "or configure a custom OpenAI-compatible endpoint for aider. devflow does not let aider read the repository's .env.";

export function buildAiderArgs(
  input: Pick<PrepareInput, "model" | "worktree" | "configHome">,
  options: AiderOptions,
  promptFile: string,
): string[] {
  const home = input.configHome;
  const args = [
    "--message-file",
    promptFile,
    "--yes-always",
    // devflow makes the commits: aider's own auto-commits (on by default) and dirty commits are off,
    // and it must not add `.aider*` to the user's .gitignore.
    "--no-auto-commits",
    "--no-dirty-commits",
    "--no-gitignore",
    "--no-pretty",
    "--no-stream",
    "--no-fancy-input",
    "--no-check-update",
    "--no-show-release-notes",
    "--analytics-disable",
    // History files default to the repo root; they go to the run's home instead.
    "--chat-history-file",
    join(home, "aider.chat.history.md"),
    "--input-history-file",
    join(home, "aider.input.history"),
    // An explicit (empty) config and env file: the user's ~/.aider.conf.yml and the repository's
    // .env / .aider.conf.yml would otherwise change the run or feed it unrelated secrets.
    "--config",
    join(home, "aider.conf.yml"),
    "--env-file",
    join(home, "aider.env"),
  ];
  const model =
    options.endpoint !== undefined
      ? `openai/${input.model ?? options.endpoint.model}`
      : (input.model ?? options.model);
  if (model !== undefined) args.push("--model", model);
  for (const file of options.readFiles ?? DEFAULT_READ_FILES) {
    if (existsSync(join(input.worktree, file))) args.push("--read", file);
  }
  return args;
}

/**
 * aider exits 0 even on fatal API errors (aider#5552), so its text is read. Only lines aider itself
 * prints at the start of a line count (litellm exception names, aider's own explanations of them,
 * its crash reporter): the model's reply is echoed too and may mention exception names in code.
 */
const FATAL_LINE =
  /^(?:litellm\.\w+(?:Error|Exception)\b|The API provider(?: is not able to authenticate you| has rate limited you|'s servers are down or overloaded| timed out)|An uncaught exception occurred)/;
/** aider retries transient errors itself; an error followed by this line was not the end of the run. */
const RETRY_LINE = /^Retrying in [\d.]+ seconds/;
const RETRY_WINDOW_LINES = 12;

/** The first fatal error line that aider did not go on to retry, or null. */
export function detectAiderFatal(text: string): string | null {
  const lines = text.split("\n").map((line) => line.trim());
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (!FATAL_LINE.test(line)) continue;
    // An error's details can span a few lines before aider announces the retry.
    const following = lines.slice(i + 1, i + 1 + RETRY_WINDOW_LINES);
    if (following.some((candidate) => RETRY_LINE.test(candidate))) continue;
    return line;
  }
  return null;
}

const NUMBER = String.raw`([\d.,]+)\s*([kKmM]?)`;
const TOKENS_LINE = new RegExp(String.raw`Tokens:\s*${NUMBER}\s*sent(?:.*?),\s*${NUMBER}\s*received`, "i");
const SESSION_COST = /Cost:.*?\$([\d.,]+)\s*session/i;

function parseCount(digits: string | undefined, suffix: string | undefined): number {
  const value = Number((digits ?? "0").replace(/,/g, ""));
  const scale = suffix === "k" || suffix === "K" ? 1_000 : suffix === "m" || suffix === "M" ? 1_000_000 : 1;
  return Number.isFinite(value) ? value * scale : 0;
}

/**
 * Reads aider's "Tokens: 2.3k sent, 150 received. Cost: $0.01 message, $0.02 session." lines; the
 * exact format is not documented [uncertain], so an unrecognised line just leaves usage unknown.
 */
export class AiderUsageReader {
  private readonly totals = new UsageTotals();

  push(line: string): void {
    const tokens = TOKENS_LINE.exec(line);
    if (tokens !== null) this.totals.add(parseCount(tokens[1], tokens[2]), parseCount(tokens[3], tokens[4]));
    const session = SESSION_COST.exec(line);
    if (session !== null) this.totals.setCost(Number((session[1] ?? "0").replace(/,/g, "")));
  }

  result(): Interpretation["usage"] {
    return this.totals.result();
  }
}

export function interpretAider(
  usage: Interpretation["usage"],
  run: Pick<ProcessRunResult, "exitCode" | "output">,
): Interpretation {
  const finalMessage = tail(run.output, 2000);
  const fatal = detectAiderFatal(run.output);
  if (fatal !== null) {
    return {
      status: classifyErrorText(fatal),
      finalMessage,
      usage,
      error: `aider hit a fatal error: ${fatal}`,
    };
  }
  if (run.exitCode !== 0) {
    return {
      status: classifyErrorText(tail(run.output)),
      finalMessage,
      usage,
      error: `aider exited with code ${run.exitCode ?? "none"}: ${tail(run.output, 400)}`,
    };
  }
  // aider has no structured result: with no fatal error in its text, the git diff is the judge.
  return { status: "ok", finalMessage, usage, error: null };
}

export function aiderSpec(options: AiderOptions = {}): CliBackendSpec {
  const endpoint = options.endpoint;
  return {
    name: "aider",
    binary: "aider",
    installHint: AIDER_INSTALL_HINT,
    authHint: AIDER_AUTH_HINT,
    passEnv: PASS_ENV,
    authConfigured: (env) =>
      endpoint !== undefined ? endpointKeyAvailable(endpoint, env) : hasAny(env, AUTH_KEYS),
    // aider has no config-home variable; its config and history files are redirected by flags instead.
    homeEnv: () => ({}),
    prepare(input) {
      const promptFile = join(input.configHome, "aider-message.md");
      const env: Record<string, string> = {};
      if (endpoint !== undefined) {
        env.OPENAI_API_BASE = endpointBase(endpoint);
        const keyEnv = endpointKeyEnv(endpoint);
        const key = keyEnv === undefined ? undefined : pickEnv(input.sourceEnv, [keyEnv])[keyEnv];
        // litellm's openai client insists on some key; a local keyless server accepts any.
        env.OPENAI_API_KEY = key ?? "devflow-no-key";
      }
      const usage = new AiderUsageReader();
      return {
        args: buildAiderArgs(input, options, promptFile),
        stdin: "closed",
        env,
        files: [
          { path: promptFile, content: input.prompt },
          { path: join(input.configHome, "aider.conf.yml"), content: "# devflow: intentionally empty\n" },
          { path: join(input.configHome, "aider.env"), content: "# devflow: intentionally empty\n" },
        ],
        onStdoutLine: (line) => usage.push(line),
        interpret: async (run) => interpretAider(usage.result(), run),
      };
    },
  };
}

export function createAiderBackend(options: AiderOptions = {}): CliCoderBackend {
  return createCliBackend(aiderSpec(options), options);
}
