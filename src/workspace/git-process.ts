import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { stdioClosingInherited } from "../process/inherited-fds.js";

/** What one git process did: its exit code (undefined: never started, or ended by a signal) and output. */
export interface GitProcessResult {
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
  /** Not started, ended by a signal, over the output cap, or a non-zero exit. */
  failed: boolean;
  /** Why it failed, in one line (empty when it did not). */
  shortMessage: string;
}

export interface GitProcessOptions {
  cwd: string;
  /** The whole environment (nothing is inherited on top). */
  env: Record<string, string>;
  /** Text for stdin. */
  input?: string;
  /** A file for stdin. */
  inputFile?: string;
  /** stdout + stderr beyond this many bytes ends the process and fails the call. */
  maxBuffer: number;
}

/**
 * Starts `git <args>` with node:child_process directly and collects its output (issue 11). devflow
 * starts 20-odd git processes per attempt; execa's option handling, stream plumbing and result
 * object cost ~2.3 ms of devflow's CPU per call on top of the spawn itself (measured: 3.8 vs 1.5 ms
 * per `git rev-parse`), a third of the per-attempt budget. No shell: arguments go to git as they are.
 */
export function runGitProcess(
  args: readonly string[],
  options: GitProcessOptions,
): Promise<GitProcessResult> {
  return new Promise((resolve) => {
    let stdinFd: number | null = null;
    try {
      if (options.inputFile !== undefined) stdinFd = openSync(options.inputFile, "r");
    } catch (error) {
      resolve(notStarted(error));
      return;
    }
    const child = spawn("git", args, {
      cwd: options.cwd,
      env: options.env,
      stdio: stdioClosingInherited([
        stdinFd ?? (options.input === undefined ? "ignore" : "pipe"),
        "pipe",
        "pipe",
      ]),
      windowsHide: true,
    });
    if (stdinFd !== null) closeSync(stdinFd);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let bytes = 0;
    let overCap = false;
    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > options.maxBuffer) {
        if (!overCap) child.kill("SIGKILL");
        overCap = true;
        return;
      }
      into.push(chunk);
    };
    child.stdout?.on("data", collect(out));
    child.stderr?.on("data", collect(err));
    let startError: Error | null = null;
    child.on("error", (error) => {
      startError = error;
    });
    if (options.input !== undefined && child.stdin) {
      // git may exit before reading all of it (an error): its closed pipe is not devflow's failure.
      child.stdin.on("error", () => {});
      child.stdin.end(options.input);
    }
    child.on("close", (code, signal) => {
      const stdout = Buffer.concat(out).toString("utf8");
      const stderr = Buffer.concat(err).toString("utf8");
      const error = startError as Error | null;
      if (error) {
        resolve({ ...notStarted(error), stdout, stderr });
        return;
      }
      const exitCode = signal === null && code !== null ? code : undefined;
      const shortMessage = overCap
        ? `git ${args.join(" ")} printed more than ${options.maxBuffer} bytes`
        : exitCode === undefined
          ? `git ${args.join(" ")} was killed by ${signal ?? "a signal"}`
          : exitCode !== 0
            ? `git ${args.join(" ")} exited with code ${exitCode}`
            : "";
      resolve({
        exitCode: overCap ? undefined : exitCode,
        stdout,
        stderr,
        failed: shortMessage !== "",
        shortMessage,
      });
    });
  });
}

function notStarted(error: unknown): GitProcessResult {
  const message = error instanceof Error ? error.message : String(error);
  return {
    exitCode: undefined,
    stdout: "",
    stderr: "",
    failed: true,
    shortMessage: `git could not be started: ${message}`,
  };
}
