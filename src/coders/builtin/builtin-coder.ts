import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import {
  createAgent,
  HumanMessage,
  modelCallLimitMiddleware,
  modelRetryMiddleware,
  toolCallLimitMiddleware,
} from "langchain";
import { findCause, isDevflowError } from "../../errors/index.js";
import { isTransientModelError, type ModelGateway } from "../../models/contract.js";
import { createModelGateway } from "../../models/create-gateway.js";
import type { ToolContext } from "../../tools/index.js";
import { type GuardDecision, loopGuardMiddleware } from "../../tools/loop-guards/index.js";
import { fillPrompt, loadPrompt } from "../../util/prompts.js";
import { createRedactor, secretsFromEnv } from "../../util/redact.js";
import { excerpt } from "../../util/truncate.js";
import { TRANSCRIPT_FILE } from "../cli/cli-backend.js";
import {
  type CoderBackend,
  type CoderProbe,
  type CoderRunRequest,
  type CoderRunResult,
  coderUnavailableError,
} from "../contract.js";
import { type BuiltinLimits, DEFAULT_BUILTIN_LIMITS } from "./limits.js";
import { decideOutcome } from "./outcome.js";
import { builtinCoderTools } from "./tools.js";
import { CoderTranscript } from "./transcript.js";
import { transcriptMiddleware } from "./transcript-middleware.js";
import { coderUsageSince } from "./usage.js";

export const BUILTIN_CODER = "builtin";
const PROMPT_AGENT = "builtin-coder";
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
 * devflow's own coder: a langchain createAgent agent over the model gateway's "coder" role, with
 * tools confined to the worktree, langchain's call limits and model retry, and junco's loop guards
 * as middleware. It never commits; the lane reads the changes from git.
 */
export function createBuiltinCoder(options: BuiltinCoderOptions = {}): CoderBackend {
  const limits: BuiltinLimits = { ...DEFAULT_BUILTIN_LIMITS, ...options.limits };
  const env = options.env ?? process.env;

  const gatewayFor = (request: CoderRunRequest): ModelGateway => {
    if (options.models !== undefined) return options.models;
    try {
      return createModelGateway({
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
      return runBuiltin(request, gatewayFor(request), limits);
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
  const ctx: ToolContext = { worktree: resolve(request.worktree), signal, written: new Set() };
  const usageBefore = gateway.usage().by_role.coder;
  let guardStop: GuardDecision | null = null;

  const agent = createAgent({
    model: gateway.chatModel("coder"),
    tools: builtinCoderTools(ctx, { commandTimeoutMs: limits.commandTimeoutMs }),
    systemPrompt: fillPrompt(loadPrompt(PROMPT_AGENT), {
      model_call_limit: String(limits.modelCalls),
      tool_call_limit: String(limits.toolCalls),
    }),
    middleware: [
      transcriptMiddleware(transcript, redact),
      modelCallLimitMiddleware({ runLimit: limits.modelCalls, exitBehavior: "end" }),
      toolCallLimitMiddleware({ runLimit: limits.toolCalls, exitBehavior: "continue" }),
      modelRetryMiddleware({
        maxRetries: limits.modelRetries,
        initialDelayMs: limits.modelRetryDelayMs,
        retryOn: (error) => !signal.aborted && isTransientModelError(error),
        onFailure: "error",
      }),
      loopGuardMiddleware({
        outputTokenBudget: limits.outputTokenBudget,
        nudge: (trip) =>
          fillPrompt(loadPrompt(PROMPT_AGENT, `nudge-${trip.kind}.md`), { detail: trip.detail }).trim(),
        onDecision: (decision) => {
          transcript.record({ type: "guard", ...decision });
          if (decision.action === "stop") guardStop = decision;
        },
      }),
    ],
    name: "coder-builtin",
  });

  transcript.record({
    type: "start",
    backend: BUILTIN_CODER,
    mode: gateway.mode,
    model: gateway.modelName("coder"),
    timeout_ms: request.timeoutMs,
    limits,
  });
  let error: unknown = null;
  try {
    const stream = await agent.stream(
      { messages: [new HumanMessage(request.prompt)] },
      // The model call limit is meant to end the run long before this backstop of graph steps.
      { streamMode: "values", signal, recursionLimit: (limits.modelCalls + 2) * 10 },
    );
    for await (const _state of stream) {
      // Progress is recorded by the middleware as it happens; the final state adds nothing.
    }
  } catch (caught) {
    // A cassette that has no answer is a broken scenario, not a coder outcome: fail loudly (unless
    // the run was being stopped anyway, when the call should not have been made at all).
    const exhausted = findCause(caught, (e) => isDevflowError(e, "REPLAY_EXHAUSTED"));
    if (exhausted !== undefined && !signal.aborted) throw exhausted;
    error = caught;
  }

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
