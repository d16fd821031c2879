import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createClaudeBackend } from "../../src/coders/claude.js";
import { CONFIG_HOME_DIR } from "../../src/coders/cli/cli-backend.js";
import { createStubWorld } from "./harness.js";
import { type CliCoderInitializer, coderConformanceSpec } from "./spec/index.js";

const KEY = "sk-ant-api03-test0123456789abcdefghij";

const initializer: CliCoderInitializer = {
  kind: "cli",
  createBackend: (options) => createClaudeBackend(options),
  cli: "claude",
  authEnv: { ANTHROPIC_API_KEY: KEY },
  secretEnv: "ANTHROPIC_API_KEY",
  stdin: "prompt",
  installStep: "npm install -g @anthropic-ai/claude-code",
  expectedUsage: { input_tokens: 140, output_tokens: 20, cost_usd: 0.0123 },
  expectInvocation(call, world) {
    expect(call.argv.slice(0, 4)).toEqual(["-p", "--output-format", "stream-json", "--verbose"]);
    expect(call.argv).toEqual(expect.arrayContaining(["--permission-mode", "acceptEdits"]));
    expect(call.env.CLAUDE_CONFIG_DIR).toBe(join(world.scratchDir, CONFIG_HOME_DIR));
  },
};

coderConformanceSpec(initializer);

describe("claude specifics", () => {
  const runWith = async (scenario: string, options: Parameters<typeof createClaudeBackend>[0] = {}) => {
    const world = createStubWorld("claude");
    try {
      const backend = createClaudeBackend({
        sourceEnv: world.sourceEnv({ ANTHROPIC_API_KEY: KEY }),
        ...options,
      });
      const result = await backend.run({
        prompt: "do it",
        worktree: world.worktree,
        attemptDir: world.attemptDir,
        scratchDir: world.scratchDir,
        env: world.stubEnv(scenario),
        timeoutMs: 60_000,
      });
      return { result, call: world.readCall() };
    } finally {
      world.cleanup();
    }
  };

  it("passes --max-turns and --max-budget-usd, and maps their stops to turn_limit and budget", async () => {
    const options = { maxTurns: 2, maxBudgetUsd: 0.5, model: "sonnet" };
    const turns = await runWith("turn_limit", options);
    expect(turns.call.argv).toEqual(
      expect.arrayContaining(["--max-turns", "2", "--max-budget-usd", "0.5", "--model", "sonnet"]),
    );
    expect(turns.result.status).toBe("turn_limit");
    expect((await runWith("budget", options)).result.status).toBe("budget");
  });

  it("passes --allowedTools as one comma-separated list", async () => {
    const { call } = await runWith("success", { allowedTools: ["Bash(npm test:*)", "Read"] });
    expect(call.argv).toEqual(expect.arrayContaining(["--allowedTools", "Bash(npm test:*),Read"]));
  });
});
