import { join } from "node:path";
import { expect } from "vitest";
import { CONFIG_HOME_DIR } from "../../src/coders/cli/cli-backend.js";
import { createOpencodeBackend } from "../../src/coders/opencode.js";
import { type CliCoderInitializer, coderConformanceSpec } from "./spec/index.js";

const KEY = "sk-ant-api03-opencode0123456789abcdef";

const initializer: CliCoderInitializer = {
  kind: "cli",
  createBackend: (options) => createOpencodeBackend(options),
  cli: "opencode",
  authEnv: { ANTHROPIC_API_KEY: KEY },
  secretEnv: "ANTHROPIC_API_KEY",
  stdin: "closed",
  installStep: "npm install -g opencode-ai",
  expectedUsage: { input_tokens: 80, output_tokens: 12, cost_usd: 0.002 },
  expectInvocation(call, world, prompt) {
    expect(call.argv.slice(0, 6)).toEqual(["run", "--format", "json", "--dir", world.worktree, "--auto"]);
    expect(call.argv.at(-1)).toBe(prompt);
    const config = JSON.parse(call.env.OPENCODE_CONFIG_CONTENT ?? "{}");
    // Nothing may resolve to "ask": `opencode run` would wait forever.
    expect(config.permission).toEqual({ "*": "allow", external_directory: "deny" });
    expect(call.env.XDG_CONFIG_HOME).toBe(join(world.scratchDir, CONFIG_HOME_DIR, "config"));
    expect(call.env.XDG_DATA_HOME).toBe(join(world.scratchDir, CONFIG_HOME_DIR, "data"));
    expect(call.env.OPENCODE_DISABLE_CLAUDE_CODE_PROMPT).toBe("1");
  },
};

coderConformanceSpec(initializer);
