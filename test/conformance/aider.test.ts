import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createAiderBackend } from "../../src/coders/aider.js";
import { CONFIG_HOME_DIR } from "../../src/coders/cli/cli-backend.js";
import { createStubWorld } from "./harness.js";
import { type CliCoderInitializer, coderConformanceSpec } from "./spec/index.js";

const KEY = "sk-proj-aider0123456789abcdefghijkl";

const initializer: CliCoderInitializer = {
  kind: "cli",
  createBackend: (options) => createAiderBackend(options),
  cli: "aider",
  authEnv: { OPENAI_API_KEY: KEY },
  secretEnv: "OPENAI_API_KEY",
  stdin: "closed",
  installStep: "python -m pip install aider-install && aider-install",
  expectedUsage: { input_tokens: 2300, output_tokens: 150, cost_usd: 0.02 },
  expectInvocation(call, world, prompt) {
    const home = join(world.scratchDir, CONFIG_HOME_DIR);
    expect(call.argv.slice(0, 2)).toEqual(["--message-file", join(home, "aider-message.md")]);
    expect(call.message).toBe(prompt);
    expect(call.argv).toEqual(
      expect.arrayContaining(["--yes-always", "--no-auto-commits", "--no-dirty-commits", "--no-gitignore"]),
    );
    expect(call.argv).toEqual(
      expect.arrayContaining(["--chat-history-file", join(home, "aider.chat.history.md")]),
    );
  },
};

coderConformanceSpec(initializer);

describe("aider specifics", () => {
  it("an error aider retried and recovered from does not fail the run", async () => {
    const world = createStubWorld("aider");
    try {
      const backend = createAiderBackend({ sourceEnv: world.sourceEnv({ OPENAI_API_KEY: KEY }) });
      const result = await backend.run({
        prompt: "do it",
        worktree: world.worktree,
        attemptDir: world.attemptDir,
        scratchDir: world.scratchDir,
        env: world.stubEnv("retried"),
        timeoutMs: 60_000,
      });
      expect(result.status).toBe("ok");
      // --no-auto-commits was honoured: the edit is left uncommitted for devflow.
      expect(world.git(["rev-parse", "HEAD"])).toBe(world.baseSha);
      expect(world.git(["status", "--porcelain"])).toBe("?? stub-edit.txt");
    } finally {
      world.cleanup();
    }
  });
});
