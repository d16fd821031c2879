import type { CoderStatus } from "../../../src/artifacts/schemas/index.js";
import type { CliCoderBackend, CliRuntimeOptions } from "../../../src/coders/cli/types.js";
import type { CoderBackend, CoderUsage } from "../../../src/coders/contract.js";
import type { CoderWorld, StubCall, StubWorld } from "../harness.js";

/**
 * A CLI backend under test and what the spec needs to know about its CLI and its stub
 * (test/stubs/<cli>.mjs).
 */
export interface CliCoderInitializer {
  kind: "cli";
  /** Builds the backend under test; the spec injects PATH/credentials (sourceEnv) and small limits. */
  createBackend(options: CliRuntimeOptions): CliCoderBackend;
  /** Command name and stub file name. */
  cli: string;
  /** Credentials that make the backend consider itself configured. */
  authEnv: Record<string, string>;
  /** Which of `authEnv` the stub prints in the "secret" scenario. */
  secretEnv: string;
  /** How the prompt reaches the CLI: stdin closed, the prompt on stdin, or Junie's task JSON on stdin. */
  stdin: "closed" | "prompt" | "task-json";
  /** Backend-specific assertions on the documented flags and variables the stub received. */
  expectInvocation(call: StubCall, world: StubWorld, prompt: string): void;
  /** Usage the stub's success output implies, as the backend must report it. */
  expectedUsage: CoderUsage;
  /** Status of the stub's exit-0 structured failure (default "error"). */
  structuredFailureStatus?: CoderStatus;
  /** The install step the missing-binary error must name (a distinctive fragment). */
  installStep: string;
}

/** One model turn of an in-process conformance script: what the backend's model answers. */
export interface ScriptedTurn {
  content?: string;
  toolCalls?: { name: string; args: Record<string, unknown> }[];
  usage?: { input_tokens: number; output_tokens: number };
}

/** An HTTP error in place of an answer (only for drivers that talk HTTP). */
export interface ScriptedHttpError {
  httpStatus: number;
  message: string;
}

export type ScriptedAnswer = ScriptedTurn | ScriptedHttpError;

export interface InProcessOptions {
  /** Cap of coder_transcript.log (the huge-output case sets a small one). */
  transcriptCapBytes?: number;
}

/** A backend under test, built over a model that plays the script, and how to tear it down. */
export interface StartedInProcess {
  backend: CoderBackend;
  /** Everything the model was sent so far, when the driver can see it (an HTTP server can). */
  sentToModel?: () => string;
  close(): Promise<void>;
}

/** How the spec drives an in-process backend (no executable: the model is scripted instead). */
export interface InProcessCoderInitializer {
  kind: "in-process";
  /** Names the describe block, e.g. "builtin over a replay cassette". */
  name: string;
  /** Whether `start` can script HTTP errors (auth, rate limit): an HTTP server can, a cassette cannot. */
  httpErrors: boolean;
  start(script: ScriptedAnswer[], world: CoderWorld, options: InProcessOptions): Promise<StartedInProcess>;
}

/** One backend under test: a CLI run against its stub, or an in-process backend over a scripted model. */
export type CoderInitializer = CliCoderInitializer | InProcessCoderInitializer;
