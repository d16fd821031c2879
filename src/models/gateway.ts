import { resolve } from "node:path";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { AIMessageChunk } from "@langchain/core/messages";
import type { z } from "zod";
import { DevflowError } from "../errors/index.js";
import { secretsFromEnv } from "../util/redact.js";
import { CassettePlayer } from "./cassette-player.js";
import { CassetteRecorder } from "./cassette-recorder.js";
import type {
  CassetteCalls,
  CassetteCursor,
  ModelGateway,
  Role,
  StructuredCall,
  UsageSnapshot,
} from "./contract.js";
import { DEFAULT_MODEL } from "./default-model.js";
import { type Endpoint, resolveEndpoint } from "./endpoint.js";
import { resolveEndpointLimits } from "./endpoint-limits.js";
import type { EndpointChatOpenAI, LiveModelOptions } from "./live-chat-model.js";
import { RecordingChatModel } from "./recording-chat-model.js";
import { ReplayChatModel } from "./replay-chat-model.js";
import { runStructuredCall } from "./structured-call.js";
import { UsageCallbackHandler } from "./usage-callback.js";
import { UsageLedger } from "./usage-ledger.js";

const MODES: readonly ModelGatewayOptions["mode"][] = ["live", "replay", "record"];

/** The live model's class, passed in so this module never loads @langchain/openai itself. */
export type LiveModelClass = new (options: LiveModelOptions) => EndpointChatOpenAI;

export interface ModelGatewayOptions {
  mode: "live" | "replay" | "record";
  /** Model for every role without an override (default gpt-4.1-mini). */
  model?: string;
  roleModels?: Partial<Record<Role, string>>;
  /** Required for replay (read) and record (written after every call). */
  cassettePath?: string;
  /** Where OPENAI_API_KEY / OPENAI_BASE_URL are read (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Retries per call for retryable faults (default DEVFLOW_MODEL_RETRIES, else 2). */
  maxRetries?: number;
  /** Per HTTP request (default DEVFLOW_MODEL_TIMEOUT seconds, else 90 s). */
  timeoutMs?: number;
  /** Per model call, all attempts and waits (default DEVFLOW_MODEL_BUDGET seconds, else 120 s). */
  budgetMs?: number;
}

/**
 * What a gateway says about its cassette once a replay ends: the answers per role that no call
 * consumed (only replay mode can have any). A replay that leaves answers unused has drifted from
 * its cassette.
 */
export interface CassetteConsumption {
  unusedReplies(): Partial<Record<Role, number>>;
}

/**
 * The model gateway for a run, loading the live model (@langchain/openai, ~700 modules, most of a
 * replayed route's start-up CPU) only for live and record mode (issue 11). Configuration problems
 * throw a MODEL_CONFIG DevflowError here, before any work starts.
 */
export async function openModelGateway(
  opts: ModelGatewayOptions,
): Promise<ModelGateway & CassetteConsumption> {
  if (opts.mode === "replay") return buildModelGateway(opts, null);
  const { EndpointChatOpenAI } = await import("./live-chat-model.js");
  return buildModelGateway(opts, EndpointChatOpenAI);
}

/**
 * The gateway over a given live model class (null: replay only). Configuration problems (no key or
 * endpoint, missing or malformed cassette) throw a MODEL_CONFIG DevflowError here.
 */
export function buildModelGateway(
  opts: ModelGatewayOptions,
  liveModel: LiveModelClass | null,
): ModelGateway & CassetteConsumption {
  if (!MODES.includes(opts.mode)) {
    throw new DevflowError(
      "MODEL_CONFIG",
      `unknown model mode ${JSON.stringify(opts.mode)} (use one of: ${MODES.join(", ")})`,
    );
  }
  const defaultModel = opts.model?.trim() || DEFAULT_MODEL;
  const modelName = (role: Role): string => opts.roleModels?.[role]?.trim() || defaultModel;
  const ledger = new UsageLedger();
  let attempt: string | null = null;
  const models = modelFactory(opts, modelName, liveModel);
  const chatModels = new Map<Role, BaseChatModel>();

  return {
    mode: opts.mode,
    modelName,
    async structured<S extends z.ZodType>(call: StructuredCall<S>): Promise<z.infer<S>> {
      const bookAnswer = (answer: AIMessageChunk) =>
        ledger.book(
          call.role,
          modelName(call.role),
          {
            input_tokens: answer.usage_metadata?.input_tokens ?? 0,
            output_tokens: answer.usage_metadata?.output_tokens ?? 0,
          },
          call.attemptId ?? attempt,
        );
      return runStructuredCall(models.create(call.role), call, bookAnswer);
    },
    chatModel(role: Role): BaseChatModel {
      let model = chatModels.get(role);
      if (model === undefined) {
        model = models.create(role, new UsageCallbackHandler(ledger, role, modelName(role), () => attempt));
        chatModels.set(role, model);
      }
      return model;
    },
    recordExternalUsage(role, tokens, cost, attemptId) {
      ledger.bookExternal(role, tokens, cost, attemptId);
    },
    usage(): UsageSnapshot {
      return ledger.snapshot();
    },
    setAttempt(attemptId: string | null): void {
      attempt = attemptId;
    },
    async flush(): Promise<void> {
      models.flush();
    },
    unusedReplies: () => models.unusedReplies(),
    cassetteCursor: (): CassetteCursor | null =>
      opts.mode === "live" ? null : { cassette: resolve(requireCassettePath(opts)), calls: models.cursor() },
    resumeCassette: (cursor) => {
      if (opts.mode !== "live" && cursor?.cassette === resolve(requireCassettePath(opts)))
        models.resumeFrom(cursor.calls);
    },
  };
}

interface ModelFactory {
  /** A fresh chat model for a role; with a usage handler it books its own calls. */
  create(role: Role, usage?: UsageCallbackHandler): BaseChatModel;
  flush(): void;
  unusedReplies(): Partial<Record<Role, number>>;
  cursor(): CassetteCalls;
  resumeFrom(calls: CassetteCalls): void;
}

function modelFactory(
  opts: ModelGatewayOptions,
  modelName: (role: Role) => string,
  LiveModel: LiveModelClass | null,
): ModelFactory {
  const env = opts.env ?? process.env;
  if (opts.mode === "replay") {
    const player = CassettePlayer.load(requireCassettePath(opts));
    return {
      create: (role, usage) =>
        new ReplayChatModel(player, role, usage === undefined ? {} : { callbacks: [usage] }),
      flush: () => {},
      unusedReplies: () => player.unused(),
      cursor: () => player.cursor(),
      resumeFrom: (cursor) => player.resumeFrom(cursor),
    };
  }
  if (LiveModel === null)
    throw new DevflowError("INTERNAL", `${opts.mode} mode needs the live model (use openModelGateway)`);
  const endpoint = resolveEndpoint(env);
  const limits = resolveEndpointLimits(
    {
      ...(opts.timeoutMs === undefined ? {} : { timeoutMs: opts.timeoutMs }),
      ...(opts.budgetMs === undefined ? {} : { budgetMs: opts.budgetMs }),
      ...(opts.maxRetries === undefined ? {} : { maxRetries: opts.maxRetries }),
    },
    env,
  );
  const live = (role: Role, usage?: UsageCallbackHandler) =>
    new LiveModel({
      endpoint,
      model: modelName(role),
      limits,
      ...(usage === undefined ? {} : { callbacks: [usage] }),
    });
  if (opts.mode === "live")
    return {
      create: live,
      flush: () => {},
      unusedReplies: () => ({}),
      cursor: () => ({}),
      resumeFrom: () => {},
    };
  const recorder = new CassetteRecorder(requireCassettePath(opts), [
    ...secretsOf(endpoint),
    ...secretsFromEnv(env),
  ]);
  return {
    create: (role, usage) =>
      new RecordingChatModel(live(role), recorder, role, usage === undefined ? {} : { callbacks: [usage] }),
    flush: () => recorder.write(),
    unusedReplies: () => ({}),
    cursor: () => recorder.cursor(),
    resumeFrom: (cursor) => recorder.resumeFrom(cursor),
  };
}

function requireCassettePath(opts: ModelGatewayOptions): string {
  const path = opts.cassettePath?.trim();
  if (!path) throw new DevflowError("MODEL_CONFIG", `${opts.mode} mode needs a cassette path (cassettePath)`);
  return path;
}

function secretsOf(endpoint: Endpoint): string[] {
  return endpoint.secret === undefined ? [] : [endpoint.secret];
}
