import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CONFIG_HOME_DIR } from "../../src/coders/cli/cli-backend.js";
import { createJunieBackend } from "../../src/coders/junie.js";
import { createStubWorld } from "./harness.js";
import { type CliCoderInitializer, coderConformanceSpec } from "./spec/index.js";

const KEY = "junie-test-key-0123456789abcdef";

const initializer: CliCoderInitializer = {
  kind: "cli",
  createBackend: (options) => createJunieBackend(options),
  cli: "junie",
  authEnv: { JUNIE_API_KEY: KEY },
  secretEnv: "JUNIE_API_KEY",
  stdin: "task-json",
  installStep: "curl -fsSL https://junie.jetbrains.com/install.sh | bash",
  expectedUsage: { input_tokens: 150, output_tokens: 25, cost_usd: 0.015 },
  expectInvocation(call, world) {
    const home = join(world.scratchDir, CONFIG_HOME_DIR);
    expect(call.argv).toEqual(
      expect.arrayContaining([
        "--output-format=json",
        "--input-format=json",
        `--json-output-file=${join(home, "junie-output.json")}`,
        `--project=${world.worktree}`,
        `--config-location=${join(home, "config.json")}`,
      ]),
    );
    expect(call.env.JUNIE_HOME).toBe(home);
    expect(call.env.JUNIE_SKIP_UPDATE_CHECK).toBe("1");
    expect(call.env.JUNIE_SHARE_ANONYMOUS_STATISTICS).toBe("false");
    // The key travels in the environment, never on argv where `ps` shows it.
    expect(call.argv.join(" ")).not.toContain(KEY);
  },
};

coderConformanceSpec(initializer);

describe("junie specifics", () => {
  it('an "Empty" result is a failure even with exit code 0 and no errors', async () => {
    const world = createStubWorld("junie");
    try {
      const backend = createJunieBackend({ sourceEnv: world.sourceEnv({ JUNIE_API_KEY: KEY }) });
      const result = await backend.run({
        prompt: "do it",
        worktree: world.worktree,
        attemptDir: world.attemptDir,
        scratchDir: world.scratchDir,
        env: world.stubEnv("empty_result"),
        timeoutMs: 60_000,
      });
      expect(result).toMatchObject({
        status: "error",
        exitCode: 0,
        error: "junie finished with an empty result",
      });
    } finally {
      world.cleanup();
    }
  });

  it("a custom OpenAI-compatible endpoint becomes a model profile in the run's JUNIE_HOME, key by reference", async () => {
    const world = createStubWorld("junie");
    try {
      const backend = createJunieBackend({
        sourceEnv: world.sourceEnv({ LOCAL_LLM_KEY: "local-llm-key-abcdef123456" }),
        endpoint: { baseUrl: "http://127.0.0.1:8080/v1/", model: "qwen-coder", apiKeyEnv: "LOCAL_LLM_KEY" },
      });
      expect((await backend.probe()).authConfigured).toBe(true);
      const result = await backend.run({
        prompt: "do it",
        worktree: world.worktree,
        attemptDir: world.attemptDir,
        scratchDir: world.scratchDir,
        env: world.stubEnv("success"),
        timeoutMs: 60_000,
      });
      expect(result.status).toBe("ok");
      const call = world.readCall();
      expect(call.argv).toContain("--model=custom:devflow");
      expect(call.profile).toEqual({
        id: "qwen-coder",
        baseUrl: "http://127.0.0.1:8080/v1/chat/completions",
        apiType: "OpenAICompletion",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: Junie's own ${VAR} reference, resolved by Junie.
        apiKey: "${LOCAL_LLM_KEY}",
      });
      expect(call.env.LOCAL_LLM_KEY).toBe("local-llm-key-abcdef123456");
    } finally {
      world.cleanup();
    }
  });

  it("devflow writes nothing into the worktree's AGENTS.md or .junie/", async () => {
    const world = createStubWorld("junie");
    try {
      const backend = createJunieBackend({ sourceEnv: world.sourceEnv({ JUNIE_API_KEY: KEY }) });
      await backend.run({
        prompt: "do it",
        worktree: world.worktree,
        attemptDir: world.attemptDir,
        scratchDir: world.scratchDir,
        env: world.stubEnv("success"),
        timeoutMs: 60_000,
      });
      // Only the stub's own edit: no guideline file, no .junie/ folder, no profile in the repo.
      expect(world.git(["status", "--porcelain", "--untracked-files=all"])).toBe("?? stub-edit.txt");
    } finally {
      world.cleanup();
    }
  });
});
