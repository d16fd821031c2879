import { realpath } from "node:fs/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTempRepo, type TempRepo } from "../../test/support/temp-git-repo.js";
import { runCommandTool } from "./run-command.js";

let repo: TempRepo;
beforeEach(async () => {
  repo = await makeTempRepo({ "check.sh": "echo checking >&2\necho 'expected 3, got 2'\nexit 3\n" });
});
afterEach(() => repo.cleanup());

const run = (args: Record<string, unknown>, options = {}) =>
  runCommandTool(options).bind(repo.ctx()).invoke(args).then(String);

describe("run_command", () => {
  it("runs in the worktree and reports exit code 0 with the output", async () => {
    const out = await run({ command: "pwd" });
    expect(out).toContain("exit code: 0");
    expect(out).toContain(await realpath(repo.dir));
  });

  it("reports a non-zero exit code with stdout and stderr", async () => {
    const out = await run({ command: "sh check.sh" });
    expect(out.split("\n").slice(0, 2)).toEqual(["$ sh check.sh", "exit code: 3"]);
    expect(out).toContain("checking");
    expect(out).toContain("expected 3, got 2");
  });

  it("kills a command that outlives its timeout and says the exit code proves nothing", async () => {
    const out = await run({ command: "sleep 5", timeout_seconds: 0.5 });
    expect(out).toMatch(/timed out after 0.5 s: the command was killed/);
  });

  it("does not pass API keys from devflow's environment to the command", async () => {
    process.env.OPENAI_API_KEY = "sk-test-should-not-leak";
    try {
      const out = await run({ command: 'echo "key=[$OPENAI_API_KEY]"' });
      expect(out).toContain("key=[]");
      expect(out).not.toContain("sk-test-should-not-leak");
    } finally {
      delete process.env.OPENAI_API_KEY;
    }
  });

  it("refuses a timeout above the configured maximum as an argument error", async () => {
    const out = await run({ command: "true", timeout_seconds: 10_000 }, { maxTimeoutMs: 60_000 });
    expect(out).toMatch(/Invalid arguments for run_command:\n- timeout_seconds/);
  });

  it("says when the command produced no output", async () => {
    expect(await run({ command: "true" })).toMatch(/exit code: 0\n--- output .*---\n\(no output\)$/);
  });
});
