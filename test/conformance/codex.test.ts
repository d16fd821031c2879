import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CONFIG_HOME_DIR } from "../../src/coders/cli/cli-backend.js";
import { createCodexBackend } from "../../src/coders/codex.js";
import { isCoderUnavailable } from "../../src/coders/contract.js";
import { createStubWorld } from "./harness.js";
import { type CliCoderInitializer, coderConformanceSpec } from "./spec/index.js";

const KEY = "sk-proj-test0123456789abcdefghijkl";

const initializer: CliCoderInitializer = {
  kind: "cli",
  createBackend: (options) => createCodexBackend(options),
  cli: "codex",
  authEnv: { CODEX_API_KEY: KEY },
  secretEnv: "CODEX_API_KEY",
  stdin: "closed",
  installStep: "npm install -g @openai/codex",
  expectedUsage: { input_tokens: 120, output_tokens: 30, cost_usd: null },
  expectInvocation(call, world, prompt) {
    expect(call.argv.slice(0, 4)).toEqual(["exec", "--json", "-C", world.worktree]);
    expect(call.argv).toEqual(expect.arrayContaining(["--sandbox", "workspace-write"]));
    expect(call.argv.at(-1)).toBe(prompt);
    expect(call.env.CODEX_HOME).toBe(join(world.scratchDir, CONFIG_HOME_DIR));
  },
};

coderConformanceSpec(initializer);

describe("codex specifics", () => {
  it("a chat-completions endpoint is reported by probe and refused by run, before spawning", async () => {
    const world = createStubWorld("codex");
    try {
      const backend = createCodexBackend({
        sourceEnv: world.sourceEnv({ CODEX_API_KEY: KEY }),
        endpoint: { baseUrl: "http://127.0.0.1:9/v1", model: "m" },
      });
      expect((await backend.probe()).hint).toContain("Responses API");
      const error = await backend
        .run({
          prompt: "x",
          worktree: world.worktree,
          attemptDir: world.attemptDir,
          scratchDir: world.scratchDir,
          env: world.stubEnv("success"),
          timeoutMs: 60_000,
        })
        .catch((caught: unknown) => caught);
      expect(isCoderUnavailable(error)).toBe(true);
      expect(existsSync(world.recordFile)).toBe(false);
    } finally {
      world.cleanup();
    }
  });

  it("a sandbox that failed to start is an error although codex exits 0 (codex#46246)", async () => {
    const world = createStubWorld("codex");
    try {
      const backend = createCodexBackend({ sourceEnv: world.sourceEnv({ CODEX_API_KEY: KEY }) });
      const result = await backend.run({
        prompt: "do it",
        worktree: world.worktree,
        attemptDir: world.attemptDir,
        scratchDir: world.scratchDir,
        env: world.stubEnv("sandbox_failure"),
        timeoutMs: 60_000,
      });
      expect(result.exitCode).toBe(0);
      expect(result.status).toBe("error");
      expect(result.error).toContain("sandbox");
    } finally {
      world.cleanup();
    }
  });

  it("sandbox 'bypass' uses --dangerously-bypass-approvals-and-sandbox instead of --sandbox", async () => {
    const world = createStubWorld("codex");
    try {
      const backend = createCodexBackend({
        sourceEnv: world.sourceEnv({ CODEX_API_KEY: KEY }),
        sandbox: "bypass",
      });
      await backend.run({
        prompt: "do it",
        worktree: world.worktree,
        attemptDir: world.attemptDir,
        scratchDir: world.scratchDir,
        env: world.stubEnv("success"),
        timeoutMs: 60_000,
      });
      const { argv } = world.readCall();
      expect(argv).toContain("--dangerously-bypass-approvals-and-sandbox");
      expect(argv).not.toContain("--sandbox");
    } finally {
      world.cleanup();
    }
  });

  it("a prompt too long for one argument goes on stdin after `-`, written in full", async () => {
    const world = createStubWorld("codex");
    try {
      const prompt = `${"long context line\n".repeat(10_000)}end`;
      const backend = createCodexBackend({ sourceEnv: world.sourceEnv({ CODEX_API_KEY: KEY }) });
      const result = await backend.run({
        prompt,
        worktree: world.worktree,
        attemptDir: world.attemptDir,
        scratchDir: world.scratchDir,
        env: world.stubEnv("success"),
        timeoutMs: 60_000,
      });
      expect(result.status).toBe("ok");
      const call = world.readCall();
      expect(call.argv.at(-1)).toBe("-");
      expect(call.stdin).toBe(prompt);
    } finally {
      world.cleanup();
    }
  });
});
