import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { processIsRunning } from "../process/process-group.js";
import { createCommandCoder } from "./command.js";
import type { CoderRunRequest } from "./contract.js";

let root: string;
let worktree: string;
let attemptDir: string;
let scratchDir: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "devflow-command-coder-"));
  worktree = join(root, "worktree");
  attemptDir = join(root, "iterate", "attempts", "attempt-001");
  scratchDir = join(root, "scratch");
  mkdirSync(worktree);
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const request = (overrides: Partial<CoderRunRequest> = {}): CoderRunRequest => ({
  prompt: 'Fix the bug in `add()` — it must return a + b.\n\n$HOME and "quotes" stay literal ✓\n',
  worktree,
  attemptDir,
  scratchDir,
  env: {},
  timeoutMs: 60_000,
  ...overrides,
});

describe("command coder", () => {
  it("is named after its command and probes /bin/sh", async () => {
    const coder = createCommandCoder("  make fix ");
    expect(coder.name).toBe("command:make fix");
    expect(await coder.probe()).toEqual({
      name: "command:make fix",
      installed: true,
      version: null,
      hint: null,
    });
  });

  it("runs in the worktree, hands over the prompt file and reports ok on exit 0", async () => {
    const coder = createCommandCoder(
      'cp "$DEVFLOW_PROMPT_FILE" received-prompt.md && echo "$DEVFLOW_PROMPT_FILE|$DEVFLOW_WORKTREE|$DEVFLOW_MODEL" && echo && echo done',
    );
    const req = request({ model: "gpt-4.1-mini" });
    const result = await coder.run(req);
    expect(result.status).toBe("ok");
    expect(result.exitCode).toBe(0);
    expect(result.error).toBeNull();
    expect(result.usage).toBeNull();
    expect(readFileSync(join(worktree, "received-prompt.md"), "utf8")).toBe(req.prompt);
    // The prompt file is in the scratch dir: the coder is told no path into the attempt dir.
    const promptFile = join(scratchDir, "coder_prompt.md");
    expect(readFileSync(promptFile, "utf8")).toBe(req.prompt);
    expect(result.finalMessage).toBe(`${promptFile}|${worktree}|gpt-4.1-mini\ndone`);
    expect(result.transcriptPath).toBe(join(attemptDir, "coder_transcript.log"));
    expect(readFileSync(result.transcriptPath, "utf8")).toBe(
      `${promptFile}|${worktree}|gpt-4.1-mini\n\ndone\n`,
    );
  });

  it("reports a non-zero exit as error with the exit code and the last output lines", async () => {
    const coder = createCommandCoder(
      "for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo line $i; done; echo 'tests failed' >&2; exit 3",
    );
    const result = await coder.run(request());
    expect(result.status).toBe("error");
    expect(result.exitCode).toBe(3);
    expect(result.error).toContain("exited with code 3");
    expect(result.error).toContain("tests failed");
    expect(result.error).not.toContain("line 2\n");
    expect(result.finalMessage.split("\n")).toHaveLength(13);
  });

  it("keeps only the last 20 non-empty lines as the final message", async () => {
    const coder = createCommandCoder("i=0; while [ $i -lt 50 ]; do i=$((i+1)); echo line $i; echo; done");
    const result = await coder.run(request());
    const lines = result.finalMessage.split("\n");
    expect(lines).toHaveLength(20);
    expect(lines[0]).toBe("line 31");
    expect(lines[19]).toBe("line 50");
  });

  it("reports timeout and kills what the command started", async () => {
    const pidFile = join(root, "child.pid");
    // The child records its pid as the test sees it (the coder runs in its own PID namespace,
    // where $! is namespace-local): the shell reads /proc/self itself, then becomes sleep.
    const coder = createCommandCoder(
      `sh -c 'read -r p _ < /proc/self/stat; echo $p > "$0"; exec sleep 300' "${pidFile}" & sleep 0.5; wait`,
    );
    const result = await coder.run(request({ timeoutMs: 3000 }));
    expect(result.status).toBe("timeout");
    expect(result.error).toContain("3000 ms");
    expect(processIsRunning(Number(readFileSync(pidFile, "utf8")))).toBe(false);
  });

  it("reports aborted when the signal fires", async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await createCommandCoder("echo never").run(request({ signal: controller.signal }));
    expect(result.status).toBe("aborted");
  });

  it("passes request env but not devflow's own secrets, and redacts request secrets in the transcript", async () => {
    const previous = process.env.DEVFLOW_LEAK_TEST_API_KEY;
    process.env.DEVFLOW_LEAK_TEST_API_KEY = "sk-process-env-should-not-leak-123456";
    try {
      const coder = createCommandCoder('echo "leak=[$DEVFLOW_LEAK_TEST_API_KEY] key=$MY_CODER_API_KEY"');
      const result = await coder.run(request({ env: { MY_CODER_API_KEY: "coder-secret-value-42" } }));
      expect(result.finalMessage).toBe("leak=[] key=[REDACTED]");
      expect(readFileSync(result.transcriptPath, "utf8")).toBe("leak=[] key=[REDACTED]\n");
    } finally {
      if (previous === undefined) delete process.env.DEVFLOW_LEAK_TEST_API_KEY;
      else process.env.DEVFLOW_LEAK_TEST_API_KEY = previous;
    }
  });

  it("reports a missing worktree as error without running anything", async () => {
    const result = await createCommandCoder("echo hi").run(request({ worktree: join(root, "missing") }));
    expect(result.status).toBe("error");
    expect(result.error).toContain("does not exist");
    expect(existsSync(join(scratchDir, "coder_prompt.md"))).toBe(true);
  });

  it("tells the coder no path into the attempt dir: no DEVFLOW_ATTEMPT_DIR, no variable naming it", async () => {
    const result = await createCommandCoder("env").run(request());
    expect(result.status).toBe("ok");
    const env = readFileSync(result.transcriptPath, "utf8");
    expect(env).toContain(`DEVFLOW_WORKTREE=${worktree}`);
    expect(env).not.toContain("DEVFLOW_ATTEMPT_DIR");
    expect(env).not.toContain(join(root, "iterate"));
  });

  it("refuses an empty command", () => {
    expect(() => createCommandCoder("   ")).toThrow(expect.objectContaining({ code: "CODER_UNKNOWN" }));
  });
});
