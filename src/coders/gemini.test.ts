import { describe, expect, it } from "vitest";
import { buildGeminiArgs, geminiSettings, interpretGemini } from "./gemini.js";

const run = (exitCode: number | null, output = "") => ({ exitCode, output });

describe("gemini arguments and settings", () => {
  it("passes the prompt with -p, json output, yolo approval and the trust flag", () => {
    expect(buildGeminiArgs({ prompt: "go", model: "pro" }, {})).toEqual([
      "-p",
      "go",
      "--output-format",
      "json",
      "--approval-mode",
      "yolo",
      "--skip-trust",
      "--model",
      "pro",
    ]);
  });

  it("pre-selects the auth type and writes the turn limit", () => {
    expect(geminiSettings({ GEMINI_API_KEY: "k" }, { maxTurns: 7 })).toMatchObject({
      security: { auth: { selectedType: "gemini-api-key" } },
      model: { maxSessionTurns: 7 },
    });
    expect(geminiSettings({ GOOGLE_GENAI_USE_VERTEXAI: "true" }, {})).toMatchObject({
      security: { auth: { selectedType: "vertex-ai" } },
    });
  });
});

describe("gemini result interpretation", () => {
  const stats = {
    models: { a: { tokens: { prompt: 3, candidates: 1 } }, b: { tokens: { prompt: 2, candidates: 2 } } },
  };

  it("sums tokens over models; gemini reports no cost", () => {
    expect(interpretGemini({ response: "ok", stats }, run(0))).toEqual({
      status: "ok",
      finalMessage: "ok",
      usage: { input_tokens: 5, output_tokens: 3, cost_usd: null },
      error: null,
    });
  });

  it("maps exit 53 to turn_limit and 55 to an error about trust", () => {
    expect(interpretGemini(null, run(53)).status).toBe("turn_limit");
    const untrusted = interpretGemini({ error: { message: "not trusted" } }, run(55));
    expect(untrusted.status).toBe("error");
    expect(untrusted.error).toContain("untrusted folder (exit 55)");
  });

  it("an error object is a failure even with exit 0, and a missing response too", () => {
    expect(interpretGemini({ error: { message: "429 RESOURCE_EXHAUSTED" } }, run(0)).status).toBe(
      "rate_limit",
    );
    expect(interpretGemini({ stats }, run(0)).status).toBe("error");
    expect(interpretGemini(null, run(0)).status).toBe("error");
  });
});
