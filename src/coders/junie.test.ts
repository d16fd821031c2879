import { describe, expect, it } from "vitest";
import {
  buildJunieInvocation,
  inferJunieProvider,
  interpretJunieOutput,
  junieModelProfile,
} from "./junie.js";

const run = (exitCode: number | null, output = "") => ({ exitCode, output });
const input = {
  prompt: "fix it",
  worktree: "/w",
  configHome: "/a/coder-home",
  model: undefined,
};

describe("junie arguments", () => {
  it("follows the GitHub Action contract and writes the task JSON to stdin", () => {
    const built = buildJunieInvocation({ ...input, sourceEnv: { JUNIE_API_KEY: "k" } }, { model: "sonnet" });
    expect(built.args).toEqual([
      "--project=/w",
      "--cache-dir=/a/coder-home/cache",
      "--output-format=json",
      "--input-format=json",
      "--json-output-file=/a/coder-home/junie-output.json",
      "--config-location=/a/coder-home/config.json",
      "--model=sonnet",
    ]);
    expect(JSON.parse(built.stdin)).toEqual({ task: "fix it" });
    expect(built.files.map((file) => file.path)).toEqual([
      "/a/coder-home/settings.json",
      "/a/coder-home/config.json",
    ]);
    expect(JSON.parse(built.files[1]?.content ?? "")).toMatchObject({ brave: true });
  });

  it("infers --provider only from a single BYOK key and never when JUNIE_API_KEY is set", () => {
    expect(inferJunieProvider({ JUNIE_OPENROUTER_API_KEY: "k" }, undefined)).toBe("openrouter");
    expect(inferJunieProvider({ JUNIE_GROK_API_KEY: "k" }, undefined)).toBe("xai");
    expect(inferJunieProvider({ JUNIE_LITELLM_URL: "u", JUNIE_LITELLM_API_KEY: "k" }, undefined)).toBe(
      "litellm",
    );
    expect(
      inferJunieProvider({ JUNIE_OPENAI_API_KEY: "k", JUNIE_ANTHROPIC_API_KEY: "k" }, undefined),
    ).toBeUndefined();
    expect(inferJunieProvider({ JUNIE_API_KEY: "k", JUNIE_OPENAI_API_KEY: "k" }, undefined)).toBeUndefined();
    expect(inferJunieProvider({}, "anthropic")).toBe("anthropic");
  });

  it("writes a Responses-API profile without a key for a keyless local server", () => {
    expect(
      junieModelProfile({ baseUrl: "http://127.0.0.1:1234/v1", model: "m", api: "responses" }, "m"),
    ).toEqual({
      id: "m",
      baseUrl: "http://127.0.0.1:1234/v1/responses",
      apiType: "OpenAIResponses",
    });
  });
});

describe("junie output interpretation", () => {
  const ok = (value: Record<string, unknown>) => ({ kind: "ok" as const, value });

  it("sums llmUsage over every model", () => {
    const result = interpretJunieOutput(
      ok({
        result: "done",
        errors: [],
        llmUsage: [
          { inputTokens: 10, outputTokens: 1, cost: 0.5 },
          { inputTokens: 5, outputTokens: 2, cost: 0.25 },
        ],
      }),
      run(0),
    );
    expect(result).toEqual({
      status: "ok",
      finalMessage: "done",
      usage: { input_tokens: 15, output_tokens: 3, cost_usd: 0.75 },
      error: null,
    });
  });

  it("fails on errors[] even with a result, classifying the error text", () => {
    expect(interpretJunieOutput(ok({ result: "partly", errors: ["rate_limit: 429"] }), run(0)).status).toBe(
      "rate_limit",
    );
    expect(interpretJunieOutput(ok({ result: "partly", errors: ["boom"] }), run(0)).status).toBe("error");
  });

  it('fails on an empty or "Empty" result', () => {
    expect(interpretJunieOutput(ok({ result: "  " }), run(0)).status).toBe("error");
    expect(interpretJunieOutput(ok({ result: "Empty", errors: [] }), run(0)).error).toBe(
      "junie finished with an empty result",
    );
  });

  it("does not trust a result when the process exited non-zero", () => {
    const result = interpretJunieOutput(ok({ result: "done", errors: [] }), run(2));
    expect(result.status).toBe("error");
    expect(result.error).toContain("exited with code 2");
  });

  it("reports a missing output file with the output tail, classified", () => {
    const result = interpretJunieOutput({ kind: "missing" }, run(1, "Error: not logged in"));
    expect(result.status).toBe("auth");
    expect(result.error).toContain("wrote no JSON output file");
    expect(result.error).toContain("not logged in");
    expect(interpretJunieOutput({ kind: "invalid", excerpt: "<html>" }, run(0)).error).toContain(
      "not a JSON object",
    );
  });
});
