import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import {
  type BuiltinLimits,
  type CoderRunLog,
  DEFAULT_BUILTIN_LIMITS,
  runBuiltinCoderAgent,
} from "../../agents/builtin-coder/index.js";
import { thrownBy } from "../../agents/kit/index.js";
import { findCause, isDevflowError } from "../../errors/index.js";
import type { ModelGateway } from "../../models/contract.js";
import { openModelGateway } from "../../models/gateway.js";
import { createRedactor, secretsFromEnv } from "../../util/redact.js";
import { excerpt } from "../../util/truncate.js";
import { reportActivity } from "../activity.js";
import { TRANSCRIPT_FILE } from "../cli/cli-backend.js";
import {
  type CoderBackend,
  type CoderProbe,
  type CoderRunRequest,
  type CoderRunResult,
  coderUnavailableError,
} from "../contract.js";
import { decideOutcome } from "./outcome.js";
import { CoderTranscript } from "./transcript.js";
import { coderUsageSince } from "./usage.js";

export const BUILTIN_CODER = "builtin";
const PROMPT_FILE = "coder_prompt.md";
const FINAL_MESSAGE_BYTES = 4096;

export const BUILTIN_SETUP_HINT =
  "the builtin coder runs inside devflow and needs only a model endpoint: set OPENAI_API_KEY, or OPENAI_BASE_URL for a local OpenAI-compatible server (e.g. OPENAI_BASE_URL=http://127.0.0.1:8080/v1)";

export interface BuiltinCoderOptions {
  /** The run's model gateway (its "coder" role answers); without one, a live gateway is built from `env`. */
  models?: ModelGateway;
  /** Where OPENAI_API_KEY / OPENAI_BASE_URL are looked up when no gateway is given (default process.env). */
  env?: NodeJS.ProcessEnv;
  limits?: Partial<BuiltinLimits>;
}

/**
 * The `builtin` coder backend: the probe/run contract around devflow's own coding agent
 * (src/agents/builtin-coder, on the model gateway's "coder" role). This adapter writes the attempt's
 * prompt and transcript files, bounds the run by its timeout, and maps how the agent ended to a
 * CoderRunResult. It never commits; the lane reads the changes from git.
 */
export function createBuiltinCoder(options: BuiltinCoderOptions = {}): CoderBackend {
  const limits: BuiltinLimits = { ...DEFAULT_BUILTIN_LIMITS, ...options.limits };
  const env = options.env ?? process.env;

  // The live model (@langchain/openai) loads only when this coder runs without the run's gateway.
  const gatewayFor = async (request: CoderRunRequest): Promise<ModelGateway> => {
    if (options.models !== undefined) return options.models;
    try {
      return await openModelGateway({
        mode: "live",
        env,
        ...(request.model === undefined ? {} : { model: request.model }),
      });
    } catch (error) {
      if (isDevflowError(error, "MODEL_CONFIG")) {
        throw coderUnavailableError(
          "CODER_MISCONFIGURED",
          `the builtin coder has no model endpoint: ${error.message}`,
          BUILTIN_SETUP_HINT,
        );
      }
      throw error;
    }
  };

  return {
    name: BUILTIN_CODER,

    async probe(): Promise<CoderProbe> {
      const configured =
        options.models !== undefined ||
        Boolean(env.OPENAI_API_KEY?.trim()) ||
        Boolean(env.OPENAI_BASE_URL?.trim());
      // Nothing to install: it ships with devflow. What it can lack is a model endpoint.
      return {
        name: BUILTIN_CODER,
        installed: true,
        version: null,
        hint: configured ? null : BUILTIN_SETUP_HINT,
        authConfigured: configured,
      };
    },

    async run(request: CoderRunRequest): Promise<CoderRunResult> {
      return runBuiltin(request, await gatewayFor(request), limits);
    },
  };
}

async function runBuiltin(
  request: CoderRunRequest,
  gateway: ModelGateway,
  limits: BuiltinLimits,
): Promise<CoderRunResult> {
  const started = Date.now();
  const attemptDir = resolve(request.attemptDir);
  await mkdir(attemptDir, { recursive: true });
  await writeFile(join(attemptDir, PROMPT_FILE), request.prompt, "utf8");
  const transcriptPath = join(attemptDir, TRANSCRIPT_FILE);
  const secrets = [...secretsFromEnv(process.env), ...secretsFromEnv(request.env)];
  const redact = createRedactor(secrets);
  const transcript = new CoderTranscript(transcriptPath, limits.transcriptCapBytes, secrets);
  try {
    return await driveAgent({ request, gateway, limits, transcript, transcriptPath, redact, started });
  } finally {
    transcript.close();
  }
}

interface RunContext {
  request: CoderRunRequest;
  gateway: ModelGateway;
  limits: BuiltinLimits;
  transcript: CoderTranscript;
  transcriptPath: string;
  redact: (text: string) => string;
  started: number;
}

async function driveAgent(run: RunContext): Promise<CoderRunResult> {
  const { request, gateway, limits, transcript, redact } = run;
  const timeout = AbortSignal.timeout(request.timeoutMs);
  const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
  const usageBefore = gateway.usage().by_role.coder;

  transcript.record({
    type: "start",
    backend: BUILTIN_CODER,
    mode: gateway.mode,
    model: gateway.modelName("coder"),
    timeout_ms: request.timeoutMs,
    limits,
  });
  const { run: agentRun, guardStop } = await runBuiltinCoderAgent({
    model: gateway.chatModel("coder"),
    prompt: request.prompt,
    worktree: resolve(request.worktree),
    limits,
    signal,
    log: withActivity(transcript, request.onActivity),
    redact,
    // Commands the model runs are the coder's: confined like a CLI coder (ADR 0031).
    confinement: {
      ...(request.runMarker !== undefined ? { runMarker: request.runMarker } : {}),
      ...(request.mounts !== undefined ? { mounts: request.mounts } : {}),
    },
  });
  const error = thrownBy(agentRun);
  // A cassette that has no answer is a broken scenario, not a coder outcome: fail loudly (unless
  // the run was being stopped anyway, when the call should not have been made at all).
  const exhausted = findCause(error, (e) => isDevflowError(e, "REPLAY_EXHAUSTED"));
  if (exhausted !== undefined && !signal.aborted) throw exhausted;

  const outcome = decideOutcome({
    aborted: request.signal?.aborted === true,
    timedOut: timeout.aborted,
    timeoutMs: request.timeoutMs,
    error,
    guardStop,
    lastAssistant: transcript.lastAssistant,
    toolCallsRequested: transcript.toolCallsRequested,
    limits,
  });
  const durationMs = Date.now() - run.started;
  transcript.record({ type: "end", status: outcome.status, error: outcome.error, duration_ms: durationMs });
  return {
    ...(outcome.status === "ok" ? outcome : { status: outcome.status, error: redact(outcome.error) }),
    exitCode: null,
    finalMessage: excerpt(redact(transcript.lastAssistant?.text ?? ""), FINAL_MESSAGE_BYTES).text,
    transcriptPath: run.transcriptPath,
    durationMs,
    usage: coderUsageSince(gateway, usageBefore),
  };
}

/** The agent's run log, also telling the live progress line which tools the model called (display only). */
function withActivity(transcript: CoderTranscript, onActivity: CoderRunRequest["onActivity"]): CoderRunLog {
  if (onActivity === undefined) return transcript;
  const report = reportActivity(onActivity);
  return {
    assistant(answer) {
      transcript.assistant(answer);
      const calls = answer.toolCallList.map((c) => `${c.name}${toolArgument(c.args)}`);
      report(calls.length ? calls.join("; ") : answer.text);
    },
    record: (entry) => transcript.record(entry),
  };
}

/** The first string argument of a tool call (a path, a command), if any. */
function toolArgument(args: unknown): string {
  if (typeof args !== "object" || args === null) return "";
  const first = Object.values(args).find((v) => typeof v === "string");
  return typeof first === "string" ? ` ${first}` : "";
}
