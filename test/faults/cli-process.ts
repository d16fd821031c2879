import { spawn } from "node:child_process";
import { PACKAGE_ROOT } from "../../src/util/paths.js";
import { DEVFLOW_BIN } from "../support/devflow-bin.js";

export interface CliProcessRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Date.now() when the process exited. */
  exitedAt: number;
}

/**
 * The real CLI as a process (bin/devflow.js on the build) with only the given environment plus PATH and
 * HOME: what a user sees on stderr, and the exit code the shell gets.
 */
export function runDevflow(
  args: string[],
  env: Record<string, string>,
  cwd = PACKAGE_ROOT,
): Promise<CliProcessRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [DEVFLOW_BIN, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr, exitedAt: Date.now() }));
  });
}
