import { describe, expect, it } from "vitest";
import { REDACTED } from "../util/redact.js";
import {
  causeChain,
  DevflowError,
  describeError,
  ERROR_CATEGORIES,
  ERROR_CODES,
  findCause,
  isDevflowError,
  unwrapDevflowError,
} from "./index.js";

/** How langchain hands our errors back: wrapped, the original as `cause`. */
const wrap = (inner: unknown, depth: number): unknown =>
  depth === 0 ? inner : new Error(`wrapper ${depth}`, { cause: wrap(inner, depth - 1) });

describe("DevflowError", () => {
  it("takes its category from the one code table", () => {
    const error = new DevflowError("TASK_EXISTS", 'task "t1" already exists');
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ code: "TASK_EXISTS", category: "usage", hint: null, details: undefined });
    expect(error.message).toBe('task "t1" already exists');
    expect(
      new DevflowError("STALE_REVISION", "x", { details: { artifact: "a", onDisk: 2, expected: 1 } })
        .category,
    ).toBe("artifact");
  });

  it("keeps hint, details and cause", () => {
    const cause = new Error("EACCES");
    const error = new DevflowError("REPLAY_EXHAUSTED", "no answer", {
      details: { role: "critic", callNumber: 2 },
      hint: "record the cassette again",
      cause,
    });
    expect(error.details).toEqual({ role: "critic", callNumber: 2 });
    expect(error.hint).toBe("record the cassette again");
    expect(error.cause).toBe(cause);
  });

  it("every code has a known category", () => {
    for (const category of Object.values(ERROR_CODES)) expect(ERROR_CATEGORIES).toContain(category);
  });
});

describe("isDevflowError", () => {
  it("checks the class and, when given, the code", () => {
    const error = new DevflowError("MODEL_AUTH", "authentication failed", { details: { status: 401 } });
    expect(isDevflowError(error)).toBe(true);
    expect(isDevflowError(error, "MODEL_AUTH")).toBe(true);
    expect(isDevflowError(error, "MODEL_TIMEOUT")).toBe(false);
    expect(isDevflowError(new Error("plain"))).toBe(false);
    expect(isDevflowError("a string")).toBe(false);
  });
});

describe("cause chains", () => {
  const inner = new DevflowError("MODEL_NO_VALID_ANSWER", "invalid twice", { details: { role: "observer" } });

  it("walks an error and its nested causes, itself first", () => {
    const chain = [...causeChain(wrap(inner, 3))];
    expect(chain.map((e) => (e as Error).message)).toEqual([
      "wrapper 3",
      "wrapper 2",
      "wrapper 1",
      "invalid twice",
    ]);
  });

  it("finds our error through nested wrappers and leaves other errors unchanged", () => {
    expect(findCause(wrap(inner, 3), (e) => isDevflowError(e, "MODEL_NO_VALID_ANSWER"))).toBe(inner);
    expect(unwrapDevflowError(wrap(inner, 3))).toBe(inner);
    expect(unwrapDevflowError(inner)).toBe(inner);
    const foreign = wrap(new Error("boom"), 2);
    expect(unwrapDevflowError(foreign)).toBe(foreign);
  });

  it("stops on a cycle instead of looping", () => {
    const loop = new Error("loop");
    Object.defineProperty(loop, "cause", { value: loop });
    expect([...causeChain(loop)].length).toBe(10);
    expect(findCause(loop, (e) => isDevflowError(e))).toBeUndefined();
  });
});

describe("describeError", () => {
  it("is the message, with the hint in parentheses when there is one", () => {
    expect(
      describeError(
        new DevflowError("CODER_NOT_INSTALLED", 'coder "codex" is not installed', { hint: "npm i -g codex" }),
      ),
    ).toBe('coder "codex" is not installed (npm i -g codex)');
    expect(describeError(new Error("plain failure"))).toBe("plain failure");
    expect(describeError("a thrown string")).toBe("a thrown string");
  });

  it("redacts key patterns and the given secret literals in message and hint", () => {
    const error = new DevflowError(
      "MODEL_CONFIG",
      "rejected key sk-abc123DEF456ghi789JKL012 for my-literal-secret",
      {
        hint: "OPENAI_API_KEY=abc.def-123 is wrong",
      },
    );
    const line = describeError(error, ["my-literal-secret"]);
    expect(line).toBe(`rejected key ${REDACTED} for ${REDACTED} (OPENAI_API_KEY=${REDACTED} is wrong)`);
  });

  it("redacts the values of secret-named environment variables by default", () => {
    const previous = process.env.DEVFLOW_TEST_TOKEN;
    process.env.DEVFLOW_TEST_TOKEN = "hunter2-value";
    try {
      expect(describeError(new Error("login with hunter2-value failed"))).toBe(
        "login with [redacted:DEVFLOW_TEST_TOKEN] failed",
      );
    } finally {
      if (previous === undefined) delete process.env.DEVFLOW_TEST_TOKEN;
      else process.env.DEVFLOW_TEST_TOKEN = previous;
    }
  });
});
