import { describe, expect, it } from "vitest";
import { DevflowError, ERROR_CATEGORIES, type ErrorCategory } from "../errors/index.js";
import { REDACTED } from "../util/redact.js";
import { EXIT } from "./exit-codes.js";
import { REPORT_BY_CATEGORY, reportError } from "./report-error.js";

function report(error: unknown, resumable = true): { code: number; lines: string[] } {
  const lines: string[] = [];
  const code = reportError(error, (line) => lines.push(line), { resumable });
  return { code, lines };
}

describe("reportError", () => {
  it("maps every category to the documented exit code: fix-and-retry is 2, a failed run is 1", () => {
    const expected: Record<ErrorCategory, number> = {
      usage: EXIT.usage,
      config: EXIT.usage,
      workspace: EXIT.usage,
      model_config: EXIT.usage,
      model_answer: EXIT.failure,
      model_call: EXIT.failure,
      artifact: EXIT.failure,
      internal: EXIT.failure,
      interrupted: EXIT.interrupted,
    };
    for (const category of ERROR_CATEGORIES)
      expect(REPORT_BY_CATEGORY[category].exit, category).toBe(expected[category]);
  });

  it("reports a usage error as one line, exit 2", () => {
    const error = new DevflowError("TASK_EXISTS", 'task "t1" already exists: pass --resume to continue it');
    expect(report(error)).toEqual({
      code: 2,
      lines: ['devflow: task "t1" already exists: pass --resume to continue it'],
    });
  });

  it("adds the error's own hint (an unavailable coder)", () => {
    const error = new DevflowError("CODER_NOT_INSTALLED", 'coder "codex" is not installed', {
      hint: "install it: npm i -g @openai/codex",
    });
    expect(report(error)).toEqual({
      code: 2,
      lines: ['devflow: coder "codex" is not installed', "  → install it: npm i -g @openai/codex"],
    });
  });

  it("treats a rejected key or unknown model as configuration (exit 2) with the resume step", () => {
    const error = new DevflowError("MODEL_AUTH", "authentication failed (HTTP 401). Check OPENAI_API_KEY.", {
      details: { status: 401 },
    });
    expect(report(error)).toEqual({
      code: 2,
      lines: [
        "devflow: authentication failed (HTTP 401). Check OPENAI_API_KEY.",
        "  → fix the model configuration, then continue with --resume",
      ],
    });
  });

  it("names the role whose model gave no valid answer (exit 1, checkpointed)", () => {
    const error = new DevflowError(
      "MODEL_NO_VALID_ANSWER",
      "framer: model answer did not match after one repair round",
      {
        details: { role: "framer" },
      },
    );
    expect(report(error)).toEqual({
      code: 1,
      lines: [
        "devflow: the framer model gave no valid answer: framer: model answer did not match after one repair round",
        "  → the run is checkpointed; fix the model/cassette and continue with --resume",
      ],
    });
  });

  it("suggests --resume only for a command that has it", () => {
    const auth = new DevflowError("MODEL_AUTH", "authentication failed (HTTP 401)", {
      details: { status: 401 },
    });
    expect(report(auth, false).lines[1]).toBe("  → fix the model configuration, then run the command again");
    const invalid = new DevflowError("MODEL_NO_VALID_ANSWER", "router: no match", {
      details: { role: "router" },
    });
    expect(report(invalid, false)).toEqual({
      code: 1,
      lines: [
        "devflow: the router model gave no valid answer: router: no match",
        "  → fix the model/cassette, then run the command again",
      ],
    });
  });

  it("reports a transient model failure, an artifact error and a foreign error as exit 1 without a hint", () => {
    const transient = new DevflowError("MODEL_RATE_LIMIT", "rate limited (HTTP 429)", {
      details: { status: 429 },
    });
    expect(report(transient)).toEqual({ code: 1, lines: ["devflow: rate limited (HTTP 429)"] });
    expect(
      report(new DevflowError("ARTIFACT_NOT_JSON", "not JSON", { details: { file: "x.json", line: 1 } }))
        .code,
    ).toBe(1);
    expect(report(new TypeError("x is undefined"))).toEqual({ code: 1, lines: ["devflow: x is undefined"] });
    expect(report("thrown string")).toEqual({ code: 1, lines: ["devflow: thrown string"] });
  });

  it("redacts key patterns and the values of secret-named environment variables", () => {
    const { lines } = report(new DevflowError("MODEL_CONFIG", "bad key sk-abc123DEF456ghi789JKL012"));
    expect(lines).toEqual([`devflow: bad key ${REDACTED}`]);
    const previous = process.env.DEVFLOW_TEST_PASSWORD;
    process.env.DEVFLOW_TEST_PASSWORD = "correct-horse";
    try {
      expect(report(new Error("login as correct-horse failed")).lines).toEqual([
        // Named: the registry (src/util/secrets.ts) knows which variable the value came from.
        "devflow: login as [redacted:DEVFLOW_TEST_PASSWORD] failed",
      ]);
    } finally {
      if (previous === undefined) delete process.env.DEVFLOW_TEST_PASSWORD;
      else process.env.DEVFLOW_TEST_PASSWORD = previous;
    }
  });
});
