import { describe, expect, it } from "vitest";
import { buildClaudeArgs, ClaudeStream, interpretClaude } from "./claude.js";

const streamOf = (...events: object[]) => {
  const stream = new ClaudeStream();
  for (const event of events) stream.push(JSON.stringify(event));
  return stream;
};
const run = (exitCode: number | null, output = "") => ({ exitCode, output });

describe("claude arguments", () => {
  it("uses print mode, stream-json with --verbose, acceptEdits by default", () => {
    expect(buildClaudeArgs({ model: undefined }, {})).toEqual([
      "-p",
      "--output-format",
      "stream-json",
      "--verbose",
      "--permission-mode",
      "acceptEdits",
    ]);
  });

  it("lets the request's model win over the backend default", () => {
    expect(buildClaudeArgs({ model: "opus" }, { model: "sonnet" })).toEqual(
      expect.arrayContaining(["--model", "opus"]),
    );
  });
});

describe("claude result interpretation", () => {
  it("decides on is_error, not subtype (a failed API call can say subtype success)", () => {
    const stream = streamOf({ type: "result", subtype: "success", is_error: true, result: "API Error: 500" });
    expect(interpretClaude(stream, run(0))).toMatchObject({
      status: "error",
      finalMessage: "API Error: 500",
    });
  });

  it("reads cost and all input tokens including cache reads and writes", () => {
    const stream = streamOf({
      type: "result",
      subtype: "success",
      is_error: false,
      result: "ok",
      total_cost_usd: 0.5,
      usage: {
        input_tokens: 1,
        cache_read_input_tokens: 2,
        cache_creation_input_tokens: 3,
        output_tokens: 4,
      },
    });
    expect(interpretClaude(stream, run(0))).toEqual({
      status: "ok",
      finalMessage: "ok",
      usage: { input_tokens: 6, output_tokens: 4, cost_usd: 0.5 },
      error: null,
    });
  });

  it("maps max turns, budget and API statuses", () => {
    const failed = (fields: object) =>
      interpretClaude(streamOf({ type: "result", is_error: true, ...fields }), run(1)).status;
    expect(failed({ subtype: "error_max_turns" })).toBe("turn_limit");
    expect(failed({ subtype: "error_during_execution", terminal_reason: "max_turns" })).toBe("turn_limit");
    expect(failed({ subtype: "error_max_budget_usd" })).toBe("budget");
    expect(failed({ subtype: "success", api_error_status: 429 })).toBe("rate_limit");
    expect(failed({ subtype: "success", api_error_status: 401 })).toBe("auth");
  });

  it("finds a result event that arrived on stderr (reported for some 2.x setups)", () => {
    const output = `noise\n${JSON.stringify({ type: "result", subtype: "success", is_error: false, result: "from stderr" })}\n`;
    expect(interpretClaude(new ClaudeStream(), run(0, output))).toMatchObject({
      status: "ok",
      finalMessage: "from stderr",
    });
  });

  it("without any result event it is an error carrying the last assistant text", () => {
    const stream = streamOf({
      type: "assistant",
      message: { content: [{ type: "text", text: "half done" }] },
    });
    const result = interpretClaude(stream, run(0, "Error: Not logged in"));
    expect(result).toMatchObject({ status: "auth", finalMessage: "half done" });
  });

  it("a non-zero exit overrides a successful-looking result", () => {
    const stream = streamOf({ type: "result", subtype: "success", is_error: false, result: "ok" });
    expect(interpretClaude(stream, run(1)).status).toBe("error");
  });
});
