import { describe, expect, it } from "vitest";
import { endpointFromEnv, oneOf, positiveNumber } from "./cli/env-options.js";
import { CLI_CODER_NAMES, DEFAULT_CODER, knownCoders, registerCliCoders, resolveCoder } from "./index.js";

describe("CLI coder registration", () => {
  it("registers junie (the default) and the five other CLI backends, idempotently", () => {
    registerCliCoders();
    expect(DEFAULT_CODER).toBe("junie");
    expect(CLI_CODER_NAMES).toEqual(["junie", "claude", "codex", "gemini", "opencode", "aider"]);
    for (const name of CLI_CODER_NAMES) {
      expect(knownCoders()).toContain(name);
      expect(resolveCoder(name).name).toBe(name);
    }
  });
});

describe("coder options from the environment", () => {
  it("reads a custom endpoint, requiring the model and a variable NAME for the key", () => {
    expect(endpointFromEnv({})).toBeUndefined();
    expect(
      endpointFromEnv({
        DEVFLOW_CODER_BASE_URL: "http://127.0.0.1:8080/v1",
        DEVFLOW_CODER_MODEL: "qwen",
        DEVFLOW_CODER_API_KEY_ENV: "LOCAL_KEY",
        DEVFLOW_CODER_API: "responses",
      }),
    ).toEqual({
      baseUrl: "http://127.0.0.1:8080/v1",
      model: "qwen",
      apiKeyEnv: "LOCAL_KEY",
      api: "responses",
    });
    expect(() => endpointFromEnv({ DEVFLOW_CODER_BASE_URL: "http://h/v1" })).toThrow(/DEVFLOW_CODER_MODEL/);
    expect(() => endpointFromEnv({ DEVFLOW_CODER_BASE_URL: "localhost:8080" })).toThrow(
      expect.objectContaining({ code: "CODER_MISCONFIGURED" }),
    );
    expect(() =>
      endpointFromEnv({
        DEVFLOW_CODER_BASE_URL: "http://h/v1",
        DEVFLOW_CODER_MODEL: "m",
        DEVFLOW_CODER_API_KEY_ENV: "sk-live-123",
      }),
    ).toThrow(/NAME of the variable/);
  });

  it("rejects bad limits naming the variable and what it accepts", () => {
    expect(positiveNumber({ N: "3" }, "N", true)).toBe(3);
    expect(positiveNumber({ N: "0.5" }, "N", false)).toBe(0.5);
    expect(() => positiveNumber({ N: "2.5" }, "N", true)).toThrow(
      /N="2.5" is not valid: expected a positive whole number/,
    );
    expect(() => oneOf({ M: "yes" }, "M", ["a", "b"] as const)).toThrow(/expected one of a, b/);
  });
});
