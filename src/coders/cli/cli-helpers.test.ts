import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findExecutable } from "../../process/find-executable.js";
import { classifyErrorText } from "./classify.js";
import { parseVersion } from "./cli-backend.js";
import { endpointBase, endpointKeyAvailable, endpointUrl } from "./endpoint.js";
import { mergeEnv, pickEnv } from "./env.js";
import { assertPromptFitsArgument, fitsInArgument, MAX_PROMPT_ARG_BYTES } from "./prompt-arg.js";
import { StdoutDocument } from "./stdout-buffer.js";
import { UsageTotals } from "./usage.js";

describe("classifyErrorText", () => {
  it.each([
    ["429 Too Many Requests", "rate_limit"],
    ["You've hit your usage limit. (usage_limit_exceeded)", "rate_limit"],
    ["RESOURCE_EXHAUSTED: Quota exceeded", "rate_limit"],
    ["401 Unauthorized", "auth"],
    ["Invalid API key · Please run /login", "auth"],
    ["Not logged in", "auth"],
    ["rate limit for this api key reached", "rate_limit"],
    ["Tool call failed: could not apply patch", "error"],
  ])("%s → %s", (text, status) => {
    expect(classifyErrorText(text)).toBe(status);
  });
});

describe("StdoutDocument", () => {
  const documentOf = (text: string) => {
    const doc = new StdoutDocument();
    for (const line of text.split("\n")) doc.push(line);
    return doc;
  };

  it("parses a pretty-printed document", () => {
    expect(
      documentOf(JSON.stringify({ response: "hi", stats: { a: { b: 1 } } }, null, 2)).lastObject(),
    ).toEqual({
      response: "hi",
      stats: { a: { b: 1 } },
    });
  });

  it("skips warnings printed before the document", () => {
    const text = `Warning: deprecated setting\nLoaded cached credentials.\n${JSON.stringify({ response: "x" }, null, 2)}`;
    expect(documentOf(text).lastObject()).toEqual({ response: "x" });
  });

  it("gives up (null) rather than growing past its cap", () => {
    const doc = new StdoutDocument(10);
    doc.push('{"response":');
    doc.push('"far too long for the cap"}');
    expect(doc.overflowed).toBe(true);
    expect(doc.lastObject()).toBeNull();
  });
});

describe("endpoint helpers", () => {
  it("normalises the base URL and builds the full request URL", () => {
    expect(endpointBase({ baseUrl: "http://h:1/v1/", model: "m" })).toBe("http://h:1/v1");
    expect(endpointBase({ baseUrl: "http://h:1/v1/chat/completions", model: "m" })).toBe("http://h:1/v1");
    expect(endpointUrl({ baseUrl: "http://h:1/v1", model: "m" })).toBe("http://h:1/v1/chat/completions");
    expect(endpointUrl({ baseUrl: "http://h:1/v1", model: "m", api: "responses" })).toBe(
      "http://h:1/v1/responses",
    );
  });

  it("needs the named key variable to be set, and nothing for a keyless endpoint", () => {
    expect(endpointKeyAvailable({ baseUrl: "x", model: "m" }, {})).toBe(true);
    expect(endpointKeyAvailable({ baseUrl: "x", model: "m", apiKeyEnv: "K" }, {})).toBe(false);
    expect(endpointKeyAvailable({ baseUrl: "x", model: "m", apiKeyEnv: "K" }, { K: "v" })).toBe(true);
  });
});

describe("environment helpers", () => {
  it("picks only set, non-empty variables", () => {
    expect(pickEnv({ A: "1", B: "", C: undefined }, ["A", "B", "C", "D"])).toEqual({ A: "1" });
  });

  it("strips EJ_RUNNER_PWD and Claude's nesting guard whatever layer brings them", () => {
    const merged = mergeEnv(
      { PATH: "/bin", EJ_RUNNER_PWD: "/x" },
      { CLAUDECODE: "1", CLAUDE_CODE_ENTRYPOINT: "cli", K: "v" },
    );
    expect(merged).toEqual({ PATH: "/bin", K: "v" });
  });
});

describe("prompt as an argument", () => {
  it("accepts prompts below the single-argument limit and names the limit otherwise", () => {
    expect(fitsInArgument("x".repeat(MAX_PROMPT_ARG_BYTES))).toBe(true);
    // Multi-byte text counts in bytes, not characters.
    expect(fitsInArgument("é".repeat(MAX_PROMPT_ARG_BYTES / 2 + 1))).toBe(false);
    expect(() => assertPromptFitsArgument("gemini", "x".repeat(MAX_PROMPT_ARG_BYTES + 1))).toThrow(
      /gemini takes its prompt/,
    );
  });
});

describe("findExecutable", () => {
  const dir = mkdtempSync(join(tmpdir(), "devflow-find-exe-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("finds an executable file on PATH and ignores non-executables and directories", () => {
    const bin = join(dir, "bin");
    mkdirSync(join(bin, "tool-dir"), { recursive: true });
    writeFileSync(join(bin, "tool"), "#!/bin/sh\n");
    chmodSync(join(bin, "tool"), 0o755);
    writeFileSync(join(bin, "plain"), "text");
    expect(findExecutable("tool", `/nonexistent:${bin}`)).toBe(join(bin, "tool"));
    expect(findExecutable("plain", bin)).toBeNull();
    expect(findExecutable("tool-dir", bin)).toBeNull();
    expect(findExecutable(join(bin, "tool"), undefined)).toBe(join(bin, "tool"));
    expect(findExecutable("tool", undefined)).toBeNull();
  });
});

describe("parseVersion and UsageTotals", () => {
  it("reads the version token of the CLIs' --version output", () => {
    expect(parseVersion("2.1.332 (Claude Code)")).toBe("2.1.332");
    expect(parseVersion("aider 0.86.2\n")).toBe("0.86.2");
    expect(parseVersion("codex-cli 0.171.0")).toBe("0.171.0");
    expect(parseVersion("junie 9.9.9-stub")).toBe("9.9.9-stub");
    expect(parseVersion("no version here")).toBeNull();
  });

  it("keeps cost unknown until some report carries one", () => {
    const totals = new UsageTotals();
    expect(totals.result()).toBeNull();
    totals.add(10, 2);
    expect(totals.result()).toEqual({ input_tokens: 10, output_tokens: 2, cost_usd: null });
    totals.add(5, 1, 0.25);
    expect(totals.result()).toEqual({ input_tokens: 15, output_tokens: 3, cost_usd: 0.25 });
  });
});
