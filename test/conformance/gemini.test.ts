import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CONFIG_HOME_DIR } from "../../src/coders/cli/cli-backend.js";
import { createGeminiBackend, type GeminiOptions } from "../../src/coders/gemini.js";
import { createStubWorld } from "./harness.js";
import { type CliCoderInitializer, coderConformanceSpec } from "./spec/index.js";

const KEY = "AIzaSy-test0123456789abcdefghijklmnop";

const initializer: CliCoderInitializer = {
  kind: "cli",
  createBackend: (options) => createGeminiBackend(options),
  cli: "gemini",
  authEnv: { GEMINI_API_KEY: KEY },
  secretEnv: "GEMINI_API_KEY",
  stdin: "closed",
  installStep: "npm install -g @google/gemini-cli",
  expectedUsage: { input_tokens: 150, output_tokens: 25, cost_usd: null },
  expectInvocation(call, world, prompt) {
    expect(call.argv.slice(0, 2)).toEqual(["-p", prompt]);
    expect(call.argv).toEqual(
      expect.arrayContaining(["--output-format", "json", "--approval-mode", "yolo", "--skip-trust"]),
    );
    expect(call.env.GEMINI_CLI_HOME).toBe(join(world.scratchDir, CONFIG_HOME_DIR));
    expect(call.env.GEMINI_CLI_TRUST_WORKSPACE).toBe("true");
  },
};

coderConformanceSpec(initializer);

describe("gemini specifics: documented exit codes", () => {
  const runWith = async (scenario: string, options: GeminiOptions = {}) => {
    const world = createStubWorld("gemini");
    try {
      const backend = createGeminiBackend({
        sourceEnv: world.sourceEnv({ GEMINI_API_KEY: KEY }),
        ...options,
      });
      return await backend.run({
        prompt: "do it",
        worktree: world.worktree,
        attemptDir: world.attemptDir,
        scratchDir: world.scratchDir,
        env: world.stubEnv(scenario),
        timeoutMs: 60_000,
      });
    } finally {
      world.cleanup();
    }
  };

  it("exit 53 (session turn limit, set through the run's settings) is turn_limit", async () => {
    const result = await runWith("turn_limit", { maxTurns: 3 });
    expect(result.status).toBe("turn_limit");
    expect(result.exitCode).toBe(53);
    expect(result.error).toContain("Reached max session turns (3)");
  });

  it("exit 42 (input error) is an error naming the input", async () => {
    const result = await runWith("input_error");
    expect(result).toMatchObject({ status: "error", exitCode: 42 });
    expect(result.error).toContain("exit 42");
  });
});
