import { HumanMessage } from "@langchain/core/messages";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { probeEndpoint } from "../../src/daemon/endpoint-probe.js";
import { classifyCoderEnd, classifyProviderError } from "../../src/daemon/provider-fault.js";
import { transientCause } from "../../src/daemon/transient.js";
import type { RunEnd } from "../../src/daemon/worker-types.js";
import { DevflowError } from "../../src/errors/index.js";
import { createModelGateway } from "../../src/models/create-gateway.js";
import {
  errorAnswer,
  type OpenAIServer,
  type ScriptedResponse,
  startOpenAIServer,
} from "../support/openai-server.js";

/**
 * The daemon's classification of provider faults (ADR 0052), driven through devflow's real model
 * client (the live gateway: ChatOpenAI over endpointFetch, errors mapped by model-errors.ts)
 * against a scripted loopback OpenAI-compatible server, and the readiness probe against the same
 * server's GET /v1/models.
 */
let server: OpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const KEY = "sk-test-gate-0123456789abcdef";

/** One structured call of the live gateway, as a lane makes it; the error it throws. */
async function failedCall(script: ScriptedResponse[]): Promise<unknown> {
  server = await startOpenAIServer(script);
  const gateway = createModelGateway({
    mode: "live",
    model: "gpt-4.1-mini",
    env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: server.url },
    maxRetries: 0,
    timeoutMs: 400,
    budgetMs: 1500,
  });
  try {
    await gateway.structured({
      role: "framer",
      name: "frame",
      description: "Frame the task.",
      schema: z.object({ summary: z.string() }),
      messages: [new HumanMessage("fix the test")],
    });
  } catch (error) {
    return error;
  }
  throw new Error("the call was expected to fail");
}

const withRetryAfter = (seconds: string): ScriptedResponse => ({
  status: 429,
  error: { message: "Rate limit reached for requests", type: "requests", code: "rate_limit_exceeded" },
  headers: { "retry-after": seconds },
});

describe("provider faults from the live model client", () => {
  it("401 → auth_error (from the MODEL_AUTH code)", async () => {
    const fault = classifyProviderError(await failedCall([errorAnswer(401, "Incorrect API key provided")]));
    expect(fault).toMatchObject({ kind: "auth_error", from: "code" });
    expect(fault?.reason).toContain("MODEL_AUTH");
  });

  it("404 for an unknown model → misconfig", async () => {
    const fault = classifyProviderError(
      await failedCall([errorAnswer(404, "The model `gpt-nope` does not exist", "model_not_found")]),
    );
    expect(fault).toMatchObject({ kind: "misconfig", from: "code" });
  });

  it("429 with Retry-After → rate_limited carrying the server's Retry-After", async () => {
    const fault = classifyProviderError(await failedCall([withRetryAfter("45")]));
    expect(fault).toMatchObject({ kind: "rate_limited", retryAfterMs: 45_000 });
  });

  it("429 insufficient_quota → quota_exhausted (the body's code, not the words)", async () => {
    const fault = classifyProviderError(
      await failedCall([errorAnswer(429, "Please slow down", "insufficient_quota")]),
    );
    expect(fault?.kind).toBe("quota_exhausted");
  });

  it("500 → outage_backoff", async () => {
    const fault = classifyProviderError(await failedCall([errorAnswer(500, "internal error")]));
    expect(fault?.kind).toBe("outage_backoff");
  });

  it("a stall past the request timeout → outage_backoff (MODEL_TIMEOUT)", async () => {
    const error = await failedCall([{ fault: "stall" }]);
    expect(classifyProviderError(error)).toMatchObject({ kind: "outage_backoff" });
    expect(classifyProviderError(error)?.reason).toContain("MODEL_TIMEOUT");
  }, 20_000);

  it("a body cut off by a dropped connection → outage_backoff, and transient", async () => {
    const error = await failedCall([{ fault: "truncate" }]);
    expect(classifyProviderError(error)?.kind).toBe("outage_backoff");
    expect(transientCause(error)?.code).toBe("MODEL_CONNECTION");
  });

  // Bug pinned: a 200 whose JSON body ends early but whose response closed cleanly (a proxy that
  // cut the answer) was MODEL_BAD_RESPONSE like an HTML login page, so the daemon failed the ticket
  // for good. Fix: endpointFetch flags a cut-off JSON body (`details.truncated`), which is transient.
  it("a truncated JSON body closed cleanly (MODEL_BAD_RESPONSE, details.truncated) → transient outage", async () => {
    const body =
      '{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assis';
    const error = await failedCall([{ raw: { status: 200, contentType: "application/json", body } }]);
    const model = error instanceof DevflowError ? error : undefined;
    expect(model?.code).toBe("MODEL_BAD_RESPONSE");
    expect(model?.details).toMatchObject({ truncated: true });
    expect(model?.message).toContain("was cut off");
    expect(transientCause(error)?.code).toBe("MODEL_BAD_RESPONSE");
    expect(classifyProviderError(error)?.kind).toBe("outage_backoff");
  });

  it("an HTML page (MODEL_BAD_RESPONSE, not cut off) is no provider fault and not transient", async () => {
    const error = await failedCall([
      { raw: { status: 200, contentType: "text/html", body: "<!DOCTYPE html><html>login</html>" } },
    ]);
    expect((error as DevflowError).code).toBe("MODEL_BAD_RESPONSE");
    expect(transientCause(error)).toBeUndefined();
    expect(classifyProviderError(error)).toBeNull();
  });

  it("text never decides for a thrown error: a plain Error saying 401 or 503 is no provider fault", () => {
    expect(classifyProviderError(new Error("401 Unauthorized"))).toBeNull();
    expect(classifyProviderError(new Error("503 Service Unavailable"))).toBeNull();
  });

  it("an HTTP status on an unmapped error object is read (structure before text)", () => {
    const sdk = Object.assign(new Error("boom"), { status: 429, headers: { "retry-after": "7" } });
    expect(classifyProviderError(new Error("wrapped", { cause: sdk }))).toMatchObject({
      kind: "rate_limited",
      retryAfterMs: 7000,
      from: "http",
    });
  });
});

describe("provider faults a coder reported (the lane's blocked end)", () => {
  const end = (reason: string): RunEnd => ({
    status: "failed",
    verdict: "blocked",
    reason,
    taskId: "t",
    branch: null,
    commit: null,
    attempts: 1,
    artifactDir: null,
    resumed: false,
  });
  it("auth, rate_limit and (by the CLI's words, the fallback) an exhausted quota", () => {
    expect(classifyCoderEnd(end("coder codex stopped with auth: not logged in"))?.kind).toBe("auth_error");
    expect(classifyCoderEnd(end("coder claude stopped with rate_limit: 429 Too Many Requests"))?.kind).toBe(
      "rate_limited",
    );
    expect(
      classifyCoderEnd(end("coder codex stopped with rate_limit: You exceeded your current quota"))?.kind,
    ).toBe("quota_exhausted");
    expect(classifyCoderEnd(end("process_survived: coder left processes"))).toBeNull();
    expect(classifyCoderEnd({ ...end("coder x stopped with auth: y"), verdict: "failed" })).toBeNull();
  });
});

describe("a coder's provider stop the lane threw (CODER_PROVIDER_STOPPED, the daemon's lane option)", () => {
  const stop = (status: "auth" | "rate_limit", said: string) =>
    new Error("the lane stopped", {
      cause: new DevflowError("CODER_PROVIDER_STOPPED", `coder claude stopped with ${status}: ${said}`, {
        details: { status, coder: "claude", said },
      }),
    });
  it("is classified from its structured status, the CLI's words only telling a quota from a rate limit", () => {
    expect(classifyProviderError(stop("auth", "Invalid API key"))?.kind).toBe("auth_error");
    expect(classifyProviderError(stop("rate_limit", "Request rejected (429)"))?.kind).toBe("rate_limited");
    expect(classifyProviderError(stop("rate_limit", "You exceeded your current quota"))?.kind).toBe(
      "quota_exhausted",
    );
    // Its words alone are not a status: an auth stop that says "rate limit" stays auth.
    expect(classifyProviderError(stop("auth", "rate limit reached"))?.kind).toBe("auth_error");
  });
});

describe("the readiness probe (GET /v1/models)", () => {
  async function probe(models: ScriptedResponse[], timeoutMs = 1000) {
    server = await startOpenAIServer([], { models });
    const fault = await probeEndpoint({ baseURL: server.url, apiKey: KEY }, timeoutMs);
    return { fault, requests: server.requests };
  }

  it("a 200 listing is ready, asked with the key and without a model call", async () => {
    const { fault, requests } = await probe([]);
    expect(fault).toBeNull();
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /v1/models"]);
    expect(requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it("classifies its failures like a run's: 401, 404, 429 with Retry-After, quota, 500", async () => {
    expect((await probe([errorAnswer(401, "bad key")])).fault?.kind).toBe("auth_error");
    await server?.close();
    expect((await probe([errorAnswer(404, "no such route")])).fault?.kind).toBe("misconfig");
    await server?.close();
    expect((await probe([withRetryAfter("12")])).fault).toMatchObject({
      kind: "rate_limited",
      retryAfterMs: 12_000,
    });
    await server?.close();
    expect((await probe([errorAnswer(429, "no credit", "insufficient_quota")])).fault?.kind).toBe(
      "quota_exhausted",
    );
    await server?.close();
    const outage = (await probe([errorAnswer(503, "overloaded")])).fault;
    expect(outage?.kind).toBe("outage_backoff");
    expect(outage?.reason).toContain("GET ");
  });

  it("a stall is an outage within the probe's bound", async () => {
    const started = Date.now();
    const { fault } = await probe([{ fault: "stall" }], 300);
    expect(fault?.kind).toBe("outage_backoff");
    expect(fault?.reason).toContain("no answer within 0.3 s");
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("a refused connection is an outage", async () => {
    server = await startOpenAIServer([]);
    const url = server.url;
    await server.close();
    server = undefined;
    const fault = await probeEndpoint({ baseURL: url, apiKey: KEY }, 1000);
    expect(fault?.kind).toBe("outage_backoff");
    expect(fault?.reason).toContain("cannot reach");
  });
});
