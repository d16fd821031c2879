import type { ProcessRunResult } from "../../process/types.js";
import type { CoderBackend, CoderOutcome, CoderProbe, CoderUsage } from "../contract.js";
import type { ActivityOf } from "./activity.js";

/** Where a backend reads credentials and settings from; `process.env` unless a test injects one. */
export type SourceEnv = Readonly<Record<string, string | undefined>>;

/** What a backend concluded from the CLI's structured output (timeout/abort are decided by the runner). */
export type Interpretation = CoderOutcome & {
  finalMessage: string;
  usage: CoderUsage | null;
};

export interface PrepareInput {
  prompt: string;
  worktree: string;
  /** Fresh, empty, per-run directory under the request's scratch dir (never the attempt dir); removed after the run. */
  configHome: string;
  model: string | undefined;
  sourceEnv: SourceEnv;
}

export interface ConfigFile {
  /** Absolute path inside the config home (never inside the worktree). */
  path: string;
  content: string;
}

/** One run of a CLI, fully decided before spawning: argv, stdin, env, files, and how to read the result. */
export interface PreparedInvocation {
  args: string[];
  /** "closed" or the exact text written in full and then ended: stdin is never left open. */
  stdin: string | "closed";
  /** The backend's own variables (credentials, config-home locations), on top of the base allowlist. */
  env: Record<string, string>;
  files: ConfigFile[];
  /** Every complete stdout line, unbounded in length, as it arrives. */
  onStdoutLine(line: string): void;
  interpret(run: ProcessRunResult): Promise<Interpretation>;
}

/** Everything that differs between CLI backends; the shared runner does the rest. */
export interface CliBackendSpec {
  name: string;
  /** Command looked up on PATH. */
  binary: string;
  /** Exact install step(s), shown when the binary is missing. */
  installHint: string;
  /** Exact configure step(s), shown when no credential is visible. */
  authHint: string;
  /** Names of variables copied from the source env when set (credentials, pins). */
  passEnv: readonly string[];
  /** Set when the backend's configuration cannot work (probe reports it, run refuses with it). */
  misconfiguration?: { reason: string; hint: string };
  /** True when some credential the CLI accepts is visible (no model call is made to check). */
  authConfigured(env: SourceEnv): boolean;
  /** Variables that point the CLI at a config home (also used by probe's `--version`). */
  homeEnv(configHome: string): Record<string, string>;
  prepare(input: PrepareInput): PreparedInvocation;
  /** For a CLI with an event stream: what a stdout line says the coder is doing (live progress only). */
  activity?: ActivityOf;
}

/** probe() of a CLI backend: the contract's fields plus what `devflow doctor` also reports. */
export interface CliCoderProbe extends CoderProbe {
  binaryPath: string | null;
  authConfigured: boolean;
}

/** A CLI backend: the coder contract, with the richer probe `devflow doctor` uses. */
export interface CliCoderBackend extends CoderBackend {
  probe(): Promise<CliCoderProbe>;
}

/** Options every CLI backend accepts (backend-specific options extend this). */
export interface CliRuntimeOptions {
  /** Command name or absolute path; defaults to the CLI's usual name looked up on PATH. */
  binary?: string;
  /** Where credentials are read from; defaults to process.env. */
  sourceEnv?: SourceEnv;
  /** Grace between SIGTERM and SIGKILL of the process group. */
  killGraceMs?: number;
  /** Cap of the transcript and of the in-memory output excerpt. */
  maxOutputBytes?: number;
  /** Timeout of `<bin> --version` in probe(). */
  versionTimeoutMs?: number;
}

/** An OpenAI-compatible endpoint a backend should use instead of its vendor's default. */
export interface OpenAiEndpoint {
  /** Base URL in the OPENAI_BASE_URL form, e.g. http://127.0.0.1:8080/v1. */
  baseUrl: string;
  /** Model id the endpoint serves. */
  model: string;
  /** Name of the variable holding the key: the key itself is never written to disk or argv. */
  apiKeyEnv?: string;
  /** Wire protocol: chat completions (default) or the Responses API. */
  api?: "chat" | "responses";
}
