import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AiderUsageReader, buildAiderArgs, detectAiderFatal, interpretAider } from "./aider.js";

describe("aider arguments", () => {
  it("keeps commits, history, config and .env under devflow's control and passes guidelines read-only", () => {
    const worktree = mkdtempSync(join(tmpdir(), "devflow-aider-args-"));
    try {
      writeFileSync(join(worktree, "AGENTS.md"), "rules\n");
      const args = buildAiderArgs(
        { model: undefined, worktree, configHome: "/h" },
        { endpoint: { baseUrl: "http://h/v1", model: "qwen" } },
        "/h/msg.md",
      );
      expect(args.slice(0, 2)).toEqual(["--message-file", "/h/msg.md"]);
      expect(args).toEqual(
        expect.arrayContaining(["--no-auto-commits", "--no-dirty-commits", "--no-gitignore", "--yes-always"]),
      );
      expect(args).toEqual(
        expect.arrayContaining(["--config", "/h/aider.conf.yml", "--env-file", "/h/aider.env"]),
      );
      expect(args).toEqual(expect.arrayContaining(["--model", "openai/qwen", "--read", "AGENTS.md"]));
      expect(args).not.toContain("CONVENTIONS.md");
    } finally {
      rmSync(worktree, { recursive: true, force: true });
    }
  });
});

describe("aider fatal-error detection (it exits 0 on fatal API errors, aider#5552)", () => {
  it("flags litellm errors and aider's own explanations at the start of a line", () => {
    expect(detectAiderFatal("Aider v0.86\nlitellm.AuthenticationError: invalid x-api-key\n")).toBe(
      "litellm.AuthenticationError: invalid x-api-key",
    );
    expect(
      detectAiderFatal("The API provider is not able to authenticate you. Check your API key."),
    ).not.toBeNull();
  });

  it("ignores errors aider went on to retry", () => {
    const text =
      "litellm.RateLimitError: slow down\n{\n  detail\n}\nThe API provider has rate limited you.\nRetrying in 0.5 seconds...\nApplied edit";
    expect(detectAiderFatal(text)).toBeNull();
  });

  it("ignores exception names inside the model's echoed reply", () => {
    expect(
      detectAiderFatal("    raise litellm.RateLimitError(msg)\nexcept AuthenticationError:\n"),
    ).toBeNull();
  });

  it("a fatal line makes an exit-0 run a classified failure", () => {
    const result = interpretAider(null, { exitCode: 0, output: "litellm.RateLimitError: 429 quota" });
    expect(result.status).toBe("rate_limit");
  });
});

describe("aider usage lines", () => {
  it("sums sent/received tokens (k suffixes, thousands separators) and keeps the session cost", () => {
    const reader = new AiderUsageReader();
    reader.push("Tokens: 44,461 sent, 315 received. Cost: $0.14 request, $2.25 session.");
    reader.push("Tokens: 2.3k sent, 1.5k received. Cost: $0.01 message, $2.26 session.");
    expect(reader.result()).toEqual({ input_tokens: 46761, output_tokens: 1815, cost_usd: 2.26 });
  });

  it("leaves usage unknown when no line matches", () => {
    const reader = new AiderUsageReader();
    reader.push("Applied edit to x.ts");
    expect(reader.result()).toBeNull();
  });
});
