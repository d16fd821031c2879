import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pidNamespacePrefix } from "./containment.js";
import { baseEnv } from "./env.js";
import { processIsRunning } from "./process-group.js";
import { runProcess } from "./run-process.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "devflow-run-process-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const env = baseEnv();

/** Writes an executable shell script the test runs as a stub program. */
function script(name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

/** A killed orphan may linger as a zombie until PID 1 reaps it; a zombie no longer runs. */
const isGone = (pid: number): boolean => !processIsRunning(pid);

async function waitForFile(path: string): Promise<string> {
  for (let i = 0; i < 400; i++) {
    if (existsSync(path)) {
      const text = readFileSync(path, "utf8").trim();
      if (text !== "") return text;
    }
    await sleep(25);
  }
  throw new Error(`${path} never appeared`);
}

describe("runProcess exit status", () => {
  it("reports exit 0 and the output", async () => {
    const result = await runProcess({ command: "echo hello", shell: true, cwd: dir, env, timeoutMs: 30_000 });
    expect(result).toMatchObject({
      exitCode: 0,
      signal: null,
      timedOut: false,
      aborted: false,
      spawnError: null,
      output: "hello\n",
      outputTruncated: false,
      totalOutputBytes: 6,
    });
  });

  it("resolves (does not throw) for a non-zero exit and keeps stderr in the output", async () => {
    const result = await runProcess({
      command: "echo broken >&2; exit 7",
      shell: true,
      cwd: dir,
      env,
      timeoutMs: 30_000,
    });
    expect(result.exitCode).toBe(7);
    expect(result.output).toBe("broken\n");
  });

  it("passes args to a shell command as positional parameters, unparsed", async () => {
    const result = await runProcess({
      command: 'printf "%s|" "$@"',
      args: ["a b", "$HOME", "; rm -rf /"],
      shell: true,
      cwd: dir,
      env,
      timeoutMs: 30_000,
    });
    expect(result.output).toBe("a b|$HOME|; rm -rf /|");
  });

  it("runs in cwd with exactly the given environment", async () => {
    const result = await runProcess({
      command: "/usr/bin/env",
      cwd: dir,
      env: { PATH: env.PATH ?? "/usr/bin:/bin", ONLY_THIS: "yes" },
      timeoutMs: 30_000,
    });
    const names = result.output
      .trim()
      .split("\n")
      .map((line) => line.split("=")[0])
      .sort();
    expect(names).toEqual(["ONLY_THIS", "PATH"]);
    const pwd = await runProcess({ command: "pwd", shell: true, cwd: dir, env, timeoutMs: 30_000 });
    expect(pwd.output.trim()).toBe(dir);
  });
});

describe("runProcess stdin", () => {
  it("closes stdin by default, so a child reading it ends at once", async () => {
    const result = await runProcess({ command: "cat", cwd: dir, env, timeoutMs: 20_000 });
    expect(result.timedOut).toBe(false);
    expect(result.exitCode).toBe(0);
    expect(result.output).toBe("");
  });

  it("writes a stdin string in full and then ends it", async () => {
    const input = `${"line of input ✓\n".repeat(50_000)}last line without newline`;
    const result = await runProcess({
      command: "cat",
      cwd: dir,
      env,
      stdin: input,
      timeoutMs: 20_000,
      maxExcerptBytes: 2 * 1024 * 1024,
    });
    expect(result.timedOut).toBe(false);
    expect(result.exitCode).toBe(0);
    expect(result.output).toBe(input);
  });

  it("copes with a child that exits without reading its stdin", async () => {
    const result = await runProcess({
      command: "exit 3",
      shell: true,
      cwd: dir,
      env,
      stdin: "x".repeat(1 << 20),
      timeoutMs: 20_000,
    });
    expect(result.exitCode).toBe(3);
  });
});

describe("runProcess stdout lines", () => {
  it("delivers a 1 MB single line whole, and the unterminated last line at the end", async () => {
    const lines: string[] = [];
    const result = await runProcess({
      command: "head -c 1000000 /dev/zero | tr '\\0' a; printf '\\nsecond\\r\\nno newline'",
      shell: true,
      cwd: dir,
      env,
      timeoutMs: 30_000,
      onStdoutLine: (line) => lines.push(line),
    });
    expect(result.exitCode).toBe(0);
    expect(lines.map((line) => line.length)).toEqual([1_000_000, 6, 10]);
    expect(lines[0]).toBe("a".repeat(1_000_000));
    expect(lines.slice(1)).toEqual(["second", "no newline"]);
  });

  it("does not pass stderr lines to the stdout callback", async () => {
    const lines: string[] = [];
    await runProcess({
      command: "echo out; echo err >&2",
      shell: true,
      cwd: dir,
      env,
      timeoutMs: 30_000,
      onStdoutLine: (line) => lines.push(line),
    });
    expect(lines).toEqual(["out"]);
  });

  it("rethrows an error of the line callback after the child is done", async () => {
    let calls = 0;
    const run = runProcess({
      command: "echo one; echo two",
      shell: true,
      cwd: dir,
      env,
      timeoutMs: 30_000,
      onStdoutLine: () => {
        calls++;
        throw new Error("parser bug");
      },
    });
    await expect(run).rejects.toThrow("parser bug");
    expect(calls).toBe(1);
  });
});

describe("runProcess kills the whole process group", () => {
  it("on timeout, including a grandchild", async () => {
    const pidFile = join(dir, "grandchild.pid");
    const result = await runProcess({
      command: `sleep 300 & echo $! > "${pidFile}"; wait`,
      shell: true,
      cwd: dir,
      env,
      timeoutMs: 3000,
      killGraceMs: 2000,
    });
    expect(result.timedOut).toBe(true);
    expect(result.aborted).toBe(false);
    expect(result.exitCode).toBeNull();
    expect(result.signal).toBe("SIGTERM");
    expect(isGone(Number(readFileSync(pidFile, "utf8")))).toBe(true);
  });

  it("escalates to SIGKILL when the group ignores SIGTERM", async () => {
    const pidFile = join(dir, "stubborn.pid");
    const result = await runProcess({
      command: `trap '' TERM; sleep 300 & echo $! > "${pidFile}"; wait; wait`,
      shell: true,
      cwd: dir,
      env,
      timeoutMs: 3000,
      killGraceMs: 300,
    });
    expect(result.timedOut).toBe(true);
    expect(result.signal).toBe("SIGKILL");
    expect(isGone(Number(readFileSync(pidFile, "utf8")))).toBe(true);
  });

  it("on abort mid-run, including a grandchild", async () => {
    const pidFile = join(dir, "grandchild.pid");
    const controller = new AbortController();
    const run = runProcess({
      command: `sleep 300 & echo $! > "${pidFile}"; wait`,
      shell: true,
      cwd: dir,
      env,
      timeoutMs: 120_000,
      signal: controller.signal,
    });
    const grandchild = Number(await waitForFile(pidFile));
    controller.abort();
    const result = await run;
    expect(result.aborted).toBe(true);
    expect(result.timedOut).toBe(false);
    expect(isGone(grandchild)).toBe(true);
  });

  it("does not start at all when the signal is already aborted", async () => {
    const marker = join(dir, "ran");
    const result = await runProcess({
      command: `touch "${marker}"`,
      shell: true,
      cwd: dir,
      env,
      timeoutMs: 30_000,
      signal: AbortSignal.abort(),
    });
    expect(result.aborted).toBe(true);
    expect(existsSync(marker)).toBe(false);
  });

  it("ends background processes the command left behind, even when they hold stdout", async () => {
    const pidFile = join(dir, "daemon.pid");
    const result = await runProcess({
      command: `sleep 300 & echo $! > "${pidFile}"; echo started`,
      shell: true,
      cwd: dir,
      env,
      timeoutMs: 60_000,
    });
    expect(result.exitCode).toBe(0);
    expect(result.timedOut).toBe(false);
    expect(result.output).toContain("started\n");
    expect(result.output).toContain("left background processes running");
    expect(isGone(Number(readFileSync(pidFile, "utf8")))).toBe(true);
  });
});

describe("runProcess output bounds", () => {
  it("caps a 20 MB output in the transcript and the excerpt, counts every byte, and still records the run", async () => {
    const transcriptPath = join(dir, "logs", "transcript.log");
    const tailSecret = "sk-proj-TAILabc123def456ghi789jkl";
    // 20,000,000 bytes of 20-byte lines, then a secret in the tail.
    const result = await runProcess({
      command: `yes 0123456789abcdefghi | head -c 20000000; echo "final ${tailSecret}"; exit 4`,
      shell: true,
      cwd: dir,
      env,
      timeoutMs: 120_000,
      transcriptPath,
      maxOutputBytes: 1024 * 1024,
    });
    const finalLine = `final ${tailSecret}\n`;
    expect(result.exitCode).toBe(4);
    expect(result.totalOutputBytes).toBe(20_000_000 + Buffer.byteLength(finalLine));
    expect(result.outputTruncated).toBe(true);
    expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(64 * 1024);
    expect(result.output.startsWith("0123456789abcdefghi\n")).toBe(true);
    expect(result.output).toMatch(/\[\.\.\. \d+ bytes omitted \.\.\.\]/);
    expect(result.output.endsWith("final [REDACTED]\n")).toBe(true);
    const transcript = readFileSync(transcriptPath, "utf8");
    expect(transcript.endsWith(`\n[transcript truncated after ${1024 * 1024} bytes]\n`)).toBe(true);
    expect(statSync(transcriptPath).size).toBeLessThan(1024 * 1024 + 100);
  });

  it("keeps a small output whole in the transcript", async () => {
    const transcriptPath = join(dir, "t.log");
    await runProcess({
      command: "echo out; echo err >&2",
      shell: true,
      cwd: dir,
      env,
      timeoutMs: 30_000,
      transcriptPath,
    });
    expect(readFileSync(transcriptPath, "utf8").split("\n").sort()).toEqual(["", "err", "out"]);
  });
});

describe("runProcess redaction", () => {
  it("redacts env secrets and key patterns in transcript, excerpt and stdout lines, also when split across writes", async () => {
    const transcriptPath = join(dir, "t.log");
    const lines: string[] = [];
    const stub = script(
      "leaky",
      [
        // An env secret written in two pieces, with a pause so the pieces arrive as separate chunks.
        `printf 'token is %s' "$(echo "$MY_SERVICE_TOKEN" | cut -c1-8)"`,
        "sleep 0.3",
        `printf '%s and done\\n' "$(echo "$MY_SERVICE_TOKEN" | cut -c9-)"`,
        // A key pattern split the same way, on stderr.
        "printf 'key sk-proj-abc123' >&2",
        "sleep 0.3",
        "printf 'DEF456ghi789jkl012\\n' >&2",
        "echo 'Authorization: Bearer abcdef0123456789'",
      ].join("\n"),
    );
    const secret = "hunter2-correct-horse-battery";
    const result = await runProcess({
      command: stub,
      cwd: dir,
      env: { ...env, MY_SERVICE_TOKEN: secret },
      timeoutMs: 30_000,
      transcriptPath,
      onStdoutLine: (line) => lines.push(line),
    });
    const transcript = readFileSync(transcriptPath, "utf8");
    for (const text of [transcript, result.output, lines.join("\n")]) {
      expect(text).not.toContain("hunter2");
      expect(text).not.toContain("correct-horse");
      expect(text).not.toContain("abcdef0123456789");
    }
    for (const text of [transcript, result.output]) {
      expect(text).not.toContain("abc123");
      expect(text).not.toContain("DEF456");
      expect(text).toContain("token is [REDACTED] and done\n");
      expect(text).toContain("key [REDACTED]\n");
      expect(text).toContain("Authorization: Bearer [REDACTED]\n");
    }
    expect(lines).toContain("token is [REDACTED] and done");
  });
});

describe("runProcess spawn failures", () => {
  it("reports a missing command as spawnError naming it", async () => {
    const result = await runProcess({
      command: "devflow-no-such-command-xyz",
      cwd: dir,
      env,
      timeoutMs: 30_000,
    });
    expect(result.exitCode).toBeNull();
    expect(result.spawnError).toContain('"devflow-no-such-command-xyz"');
    expect(result.spawnError).toContain("not found");
  });

  it("reports a file without execute permission as spawnError", async () => {
    const path = join(dir, "not-executable");
    writeFileSync(path, "#!/bin/sh\necho hi\n");
    chmodSync(path, 0o644);
    const result = await runProcess({ command: path, cwd: dir, env, timeoutMs: 30_000 });
    expect(result.spawnError).toContain(path);
    expect(result.spawnError).toContain("permission denied");
  });

  it("reports a missing working directory as spawnError", async () => {
    const missing = join(dir, "nope");
    const result = await runProcess({ command: "true", cwd: missing, env, timeoutMs: 30_000 });
    expect(result.spawnError).toContain(missing);
    expect(result.spawnError).toContain("does not exist");
  });

  it("rejects a non-positive timeout as a programming error", async () => {
    await expect(runProcess({ command: "true", cwd: dir, env, timeoutMs: 0 })).rejects.toThrow(/timeoutMs/);
  });
});

describe("runProcess confine", () => {
  /** A shell line that leaves a `setsid` process behind and records its pid as this test sees it. */
  const escapee = (pidFile: string): string =>
    `setsid sh -c 'read -r p _ < /proc/self/stat; echo $p > "$0"; exec sleep 300' "${pidFile}" & sleep 0.5; echo done`;

  it("ends a setsid process that left the process group", async () => {
    const pidFile = join(dir, "escaped.pid");
    const result = await runProcess({
      command: escapee(pidFile),
      shell: true,
      cwd: dir,
      env,
      timeoutMs: 30_000,
      confine: true,
    });
    expect(result.exitCode).toBe(0);
    expect(result.survivors).toEqual([]);
    expect(isGone(Number(readFileSync(pidFile, "utf8")))).toBe(true);
  });

  it.skipIf(pidNamespacePrefix() === null)(
    "with a PID namespace, also ends a setsid process that cleared its environment (no marker)",
    async () => {
      const pidFile = join(dir, "unmarked.pid");
      const result = await runProcess({
        command: `setsid env -i /bin/sh -c 'read -r p _ < /proc/self/stat; echo $p > "$0"; exec /bin/sleep 300' "${pidFile}" & sleep 0.5`,
        shell: true,
        cwd: dir,
        env,
        timeoutMs: 30_000,
        confine: true,
      });
      expect(result.pidNamespace).toBe(true);
      const pid = Number(readFileSync(pidFile, "utf8"));
      for (let i = 0; i < 100 && !isGone(pid); i++) await sleep(20);
      expect(isGone(pid)).toBe(true);
    },
  );

  it("ends it by its marker also without a PID namespace", async () => {
    const { resetContainmentProbe } = await import("./containment.js");
    process.env.DEVFLOW_NO_PID_NAMESPACE = "1";
    resetContainmentProbe();
    try {
      const pidFile = join(dir, "escaped.pid");
      const result = await runProcess({
        command: escapee(pidFile),
        shell: true,
        cwd: dir,
        env,
        timeoutMs: 30_000,
        confine: true,
      });
      expect(result.pidNamespace).toBe(false);
      expect(result.output).toContain("left the process group were killed");
      expect(isGone(Number(readFileSync(pidFile, "utf8")))).toBe(true);
    } finally {
      delete process.env.DEVFLOW_NO_PID_NAMESPACE;
      resetContainmentProbe();
    }
  });

  it("without confine a setsid process is not the runner's to end (the coder path always confines)", async () => {
    const pidFile = join(dir, "escaped.pid");
    await runProcess({ command: escapee(pidFile), shell: true, cwd: dir, env, timeoutMs: 30_000 });
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(isGone(pid)).toBe(false);
    process.kill(pid, "SIGKILL");
  });
});
