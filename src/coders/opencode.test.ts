import { describe, expect, it } from "vitest";
import { buildOpencodeArgs, interpretOpencode, OpencodeStream, opencodeConfig } from "./opencode.js";

const streamOf = (...events: object[]) => {
  const stream = new OpencodeStream();
  for (const event of events) stream.push(JSON.stringify(event));
  return stream;
};
const run = (exitCode: number | null, output = "") => ({ exitCode, output });

describe("opencode arguments and config", () => {
  it("runs with --format json --dir <worktree> --auto and the prompt last", () => {
    expect(buildOpencodeArgs({ prompt: "go", worktree: "/w", model: undefined }, { agent: "build" })).toEqual(
      ["run", "--format", "json", "--dir", "/w", "--auto", "--agent", "build", "go"],
    );
  });

  it("routes a custom endpoint through an openai-compatible provider and qualifies the model", () => {
    const endpoint = { baseUrl: "http://h/v1", model: "qwen", apiKeyEnv: "K" };
    expect(buildOpencodeArgs({ prompt: "go", worktree: "/w", model: undefined }, { endpoint })).toEqual(
      expect.arrayContaining(["--model", "devflow/qwen"]),
    );
    expect(opencodeConfig(endpoint, undefined)).toMatchObject({
      permission: { "*": "allow", external_directory: "deny" },
      provider: {
        devflow: {
          npm: "@ai-sdk/openai-compatible",
          options: { baseURL: "http://h/v1", apiKey: "{env:K}" },
          models: { qwen: {} },
        },
      },
    });
  });
});

describe("opencode event interpretation", () => {
  it("keeps the latest version of a re-emitted text part and sums steps", () => {
    const stream = streamOf(
      { type: "text", part: { id: "a", text: "Edit" } },
      { type: "text", part: { id: "a", text: "Edited the file." } },
      { type: "step_finish", part: { cost: 0.5, tokens: { input: 1, output: 2 } } },
      { type: "step_finish", part: { cost: 0.25, tokens: { input: 3, output: 4 } } },
    );
    expect(interpretOpencode(stream, run(0))).toEqual({
      status: "ok",
      finalMessage: "Edited the file.",
      usage: { input_tokens: 4, output_tokens: 6, cost_usd: 0.75 },
      error: null,
    });
  });

  it("an empty final message on exit 0 is an error (auto-rejected permission, opencode#44267)", () => {
    const result = interpretOpencode(
      streamOf({ type: "step_finish", part: { tokens: { input: 1, output: 0 } } }),
      run(0),
    );
    expect(result.status).toBe("error");
    expect(result.error).toContain("#44267");
  });

  it("classifies error events by name and status code", () => {
    expect(
      interpretOpencode(
        streamOf({ type: "error", error: { name: "ProviderAuthError", data: { message: "bad key" } } }),
        run(1),
      ).status,
    ).toBe("auth");
    expect(
      interpretOpencode(
        streamOf({
          type: "error",
          error: { name: "APIError", data: { message: "slow down", statusCode: 429 } },
        }),
        run(1),
      ).status,
    ).toBe("rate_limit");
    expect(
      interpretOpencode(
        streamOf({ type: "error", error: { name: "UnknownError", data: { message: "boom" } } }),
        run(0),
      ).status,
    ).toBe("error");
  });
});
