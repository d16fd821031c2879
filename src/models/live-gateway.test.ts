import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  errorAnswer,
  type OpenAIServer,
  startOpenAIServer,
  textAnswer,
  toolCallAnswer,
} from "../../test/support/openai-server.js";
import { createModelGateway } from "./create-gateway.js";

const Route = z.object({
  route: z.enum(["iterate", "insight", "idea", "neither"]).describe("where the request goes"),
  reason: z.string().min(1),
});

const routeCall = {
  role: "router" as const,
  name: "route_request",
  description: "Classify the request.",
  schema: Route,
  messages: [new SystemMessage("You route requests."), new HumanMessage("fix the failing test")],
};

let server: OpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function liveGateway(script: Parameters<typeof startOpenAIServer>[0], model = "gpt-4.1-mini") {
  server = await startOpenAIServer(script);
  const gateway = createModelGateway({
    mode: "live",
    model,
    env: { OPENAI_API_KEY: "sk-test-key-0123456789abcdef", OPENAI_BASE_URL: server.url },
    maxRetries: 0,
  });
  return { gateway, server };
}

describe("live gateway: structured calls over ChatOpenAI", () => {
  it("forces the structured tool, parses the answer and books usage with cost", async () => {
    const { gateway, server } = await liveGateway([
      toolCallAnswer(
        "route_request",
        { route: "iterate", reason: "a failing test" },
        { prompt_tokens: 1000, completion_tokens: 200 },
      ),
    ]);

    const answer = await gateway.structured({ ...routeCall, attemptId: "attempt-001" });

    expect(answer).toEqual({ route: "iterate", reason: "a failing test" });
    const request = server.requests[0];
    expect(request?.path).toBe("/v1/chat/completions");
    expect(request?.headers.authorization).toBe("Bearer sk-test-key-0123456789abcdef");
    expect(request?.body.model).toBe("gpt-4.1-mini");
    expect(request?.body.stream).toBeFalsy();
    expect(request?.body.tool_choice).toEqual({ type: "function", function: { name: "route_request" } });
    expect(request?.body.tools).toHaveLength(1);
    const fn = request?.body.tools?.[0]?.function;
    expect(fn?.name).toBe("route_request");
    expect(fn?.description).toBe("Classify the request.");
    expect(fn?.parameters).toMatchObject({
      type: "object",
      required: ["route", "reason"],
      properties: { route: { enum: ["iterate", "insight", "idea", "neither"] } },
    });
    expect(fn?.parameters).not.toHaveProperty("$schema");

    const usage = gateway.usage();
    // gpt-4.1-mini: $0.40 / 1M input, $1.60 / 1M output
    const cost = (1000 * 0.4 + 200 * 1.6) / 1_000_000;
    expect(usage.total).toMatchObject({
      input_tokens: 1000,
      output_tokens: 200,
      total_tokens: 1200,
      calls: 1,
    });
    expect(usage.total.cost_usd).toBeCloseTo(cost, 12);
    expect(usage.by_role.router?.calls).toBe(1);
    expect(usage.by_attempt["attempt-001"]?.input_tokens).toBe(1000);
    expect(usage.priced).toBe(true);
  });

  it("uses the role's model override and flags unpriced models", async () => {
    server = await startOpenAIServer([
      toolCallAnswer(
        "route_request",
        { route: "idea", reason: "r" },
        { prompt_tokens: 10, completion_tokens: 5 },
      ),
    ]);
    const gateway = createModelGateway({
      mode: "live",
      model: "gpt-4.1-mini",
      roleModels: { router: "local-llama" },
      env: { OPENAI_BASE_URL: server.url },
      maxRetries: 0,
    });
    await gateway.structured(routeCall);
    expect(server.requests[0]?.body.model).toBe("local-llama");
    expect(gateway.modelName("router")).toBe("local-llama");
    expect(gateway.modelName("framer")).toBe("gpt-4.1-mini");
    const usage = gateway.usage();
    expect(usage.total.cost_usd).toBe(0);
    expect(usage.total.total_tokens).toBe(15);
    expect(usage.priced).toBe(false);
    expect(usage.unpriced_models).toEqual(["local-llama"]);
  });

  it("with only OPENAI_BASE_URL sends a placeholder key", async () => {
    server = await startOpenAIServer([toolCallAnswer("route_request", { route: "idea", reason: "r" })]);
    const gateway = createModelGateway({ mode: "live", env: { OPENAI_BASE_URL: server.url }, maxRetries: 0 });
    await gateway.structured(routeCall);
    expect(server.requests[0]?.headers.authorization).toMatch(/^Bearer \S+/);
  });

  it("falls back to JSON in the content when the model answers without the tool", async () => {
    const { gateway } = await liveGateway([
      textAnswer('```json\n{"route":"insight","reason":"question"}\n```'),
    ]);
    await expect(gateway.structured(routeCall)).resolves.toEqual({ route: "insight", reason: "question" });
  });
});

describe("live gateway: repair round", () => {
  it("shows the validation error to the model and accepts the repaired answer", async () => {
    const { gateway, server } = await liveGateway([
      toolCallAnswer(
        "route_request",
        { route: "elsewhere", reason: "" },
        { prompt_tokens: 100, completion_tokens: 10 },
      ),
      toolCallAnswer(
        "route_request",
        { route: "idea", reason: "fixed" },
        { prompt_tokens: 150, completion_tokens: 12 },
      ),
    ]);

    await expect(gateway.structured(routeCall)).resolves.toEqual({ route: "idea", reason: "fixed" });

    expect(server.requests).toHaveLength(2);
    const repair = server.requests[1]?.body.messages ?? [];
    const assistant = repair.at(-2);
    const feedback = repair.at(-1);
    expect(assistant?.role).toBe("assistant");
    expect(assistant?.tool_calls?.[0]?.function.name).toBe("route_request");
    expect(feedback?.role).toBe("tool");
    expect(feedback?.tool_call_id).toBe(assistant?.tool_calls?.[0]?.id);
    const text = JSON.stringify(feedback?.content);
    expect(text).toContain("route:");
    expect(text).toContain("reason:");
    expect(server.requests[1]?.body.tool_choice).toEqual({
      type: "function",
      function: { name: "route_request" },
    });
    expect(gateway.usage().by_role.router).toMatchObject({ calls: 2, input_tokens: 250, output_tokens: 22 });
  });

  it("fails with MODEL_NO_VALID_ANSWER when the repaired answer is still invalid", async () => {
    const { gateway } = await liveGateway([
      toolCallAnswer("route_request", { route: "elsewhere", reason: "x" }),
      toolCallAnswer("route_request", { route: "nowhere", reason: "y" }),
    ]);
    const failure = await gateway.structured(routeCall).catch((err: unknown) => err);
    expect(failure).toMatchObject({ code: "MODEL_NO_VALID_ANSWER", details: { role: "router" } });
    expect(String(failure)).toContain(
      "router: model answer did not match route_request after one repair round: route: Invalid option",
    );
  });

  it("repairs malformed JSON arguments", async () => {
    const { gateway, server } = await liveGateway([
      toolCallAnswer("route_request", '{"route": "idea", '),
      toolCallAnswer("route_request", { route: "idea", reason: "ok" }),
    ]);
    await expect(gateway.structured(routeCall)).resolves.toEqual({ route: "idea", reason: "ok" });
    expect(JSON.stringify(server.requests[1]?.body.messages?.at(-1)?.content)).toContain("not valid JSON");
  });
});

describe("live gateway: endpoint errors name the endpoint and what to check", () => {
  const cases = [
    {
      status: 401,
      message: "Incorrect API key provided",
      code: "MODEL_AUTH",
      expected: /authentication failed at http:\/\/127\.0\.0\.1:\d+\/v1 \(HTTP 401\).*Check OPENAI_API_KEY/,
    },
    {
      status: 429,
      message: "Rate limit reached",
      code: "MODEL_RATE_LIMIT",
      expected: /rate limited by http:\/\/127\.0\.0\.1:\d+\/v1 \(HTTP 429\)/,
    },
    {
      status: 500,
      message: "The server had an error",
      code: "MODEL_SERVER",
      expected: /server error from http:\/\/127\.0\.0\.1:\d+\/v1 \(HTTP 500\): The server had an error/,
    },
    {
      status: 404,
      message: "The model `gpt-nope` does not exist",
      code: "MODEL_NOT_FOUND",
      expected:
        /model "gpt-nope" or its endpoint was not found at http:\/\/127\.0\.0\.1:\d+\/v1 \(HTTP 404\)/,
    },
  ] as const;

  for (const c of cases) {
    it(`HTTP ${c.status} becomes a ${c.code} error`, async () => {
      const { gateway } = await liveGateway([errorAnswer(c.status, c.message)], "gpt-nope");
      const failure = await gateway.structured(routeCall).catch((err: unknown) => err);
      expect(failure).toMatchObject({ code: c.code, details: { status: c.status } });
      expect(String(failure)).toMatch(c.expected);
    });
  }

  it("quota exhaustion (429 insufficient_quota) says so", async () => {
    const { gateway } = await liveGateway([
      errorAnswer(429, "You exceeded your current quota", "insufficient_quota"),
    ]);
    await expect(gateway.structured(routeCall)).rejects.toThrow(
      /quota exhausted at .*Check the account's plan/,
    );
  });

  it("a refused connection says it cannot reach the base URL", async () => {
    const closed = await startOpenAIServer([]);
    await closed.close();
    const gateway = createModelGateway({ mode: "live", env: { OPENAI_BASE_URL: closed.url }, maxRetries: 0 });
    const failure = await gateway.structured(routeCall).catch((err: unknown) => err);
    expect(failure).toMatchObject({ code: "MODEL_CONNECTION" });
    expect(String(failure)).toContain(`cannot reach ${closed.url} (ECONNREFUSED)`);
  });

  it("chat models from the gateway give the same clear errors", async () => {
    const { gateway } = await liveGateway([errorAnswer(401, "bad key")]);
    await expect(gateway.chatModel("observer").invoke("hi")).rejects.toThrow(
      /authentication failed at .*OPENAI_API_KEY/,
    );
  });
});

describe("live gateway: errors stay clear on every chat-model path", () => {
  it("after bindTools (ChatOpenAI.withConfig used to rebuild a plain ChatOpenAI and drop the mapping)", async () => {
    const { gateway } = await liveGateway([errorAnswer(429, "Rate limit reached")]);
    const bound = gateway
      .chatModel("observer")
      .bindTools?.([
        { type: "function", function: { name: "noop", description: "d", parameters: { type: "object" } } },
      ]);
    await expect(bound?.invoke("hi")).rejects.toThrow(
      /rate limited by http:\/\/127\.0\.0\.1:\d+\/v1 \(HTTP 429\)/,
    );
  });

  it("when streaming tokens", async () => {
    const { gateway } = await liveGateway([errorAnswer(500, "The server had an error")]);
    const consume = async () => {
      for await (const _chunk of await gateway.chatModel("observer").stream("hi")) {
        // drain
      }
    };
    await expect(consume()).rejects.toThrow(/server error from http:\/\/127\.0\.0\.1:\d+\/v1 \(HTTP 500\)/);
  });
});

describe("live gateway: configuration", () => {
  it("refuses to start without OPENAI_API_KEY or OPENAI_BASE_URL", () => {
    expect(() => createModelGateway({ mode: "live", env: {} })).toThrow(
      expect.objectContaining({ code: "MODEL_CONFIG" }),
    );
    expect(() =>
      createModelGateway({ mode: "record", cassettePath: "/tmp/x.json", env: { OPENAI_API_KEY: " " } }),
    ).toThrow("set OPENAI_API_KEY (or OPENAI_BASE_URL for a local OpenAI-compatible endpoint)");
  });

  it("refuses record mode without a cassette path", () => {
    expect(() => createModelGateway({ mode: "record", env: { OPENAI_API_KEY: "sk-x" } })).toThrow(
      "record mode needs a cassette path",
    );
  });
});

describe("live gateway: chat models book their own usage", () => {
  it("books chatModel() calls under the role and the current attempt", async () => {
    const { gateway } = await liveGateway([
      textAnswer("one", { prompt_tokens: 7, completion_tokens: 3 }),
      textAnswer("two", { prompt_tokens: 11, completion_tokens: 5 }),
    ]);
    const model = gateway.chatModel("observer");
    await model.invoke("first");
    gateway.setAttempt("attempt-002");
    await model.invoke("second");
    const usage = gateway.usage();
    expect(usage.by_role.observer).toMatchObject({ calls: 2, input_tokens: 18, output_tokens: 8 });
    expect(usage.by_attempt).toEqual({
      "attempt-002": expect.objectContaining({ calls: 1, input_tokens: 11 }),
    });
  });
});
