import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../../src/util/paths.js";
import { DEVFLOW_BIN as BIN } from "./devflow-bin.js";
import { ownGroupForTest } from "./test-owned-groups.js";

const MAIN = join(PACKAGE_ROOT, "src", "cli", "main.ts");

/**
 * How a test starts the CLI as a real process.
 * - `bin`: `bin/devflow.js`, what a user's shell runs.
 * - `in-process`: the TypeScript sources through tsx (`node --import tsx src/cli/main.ts`), for
 *   checking a source change without a build.
 * The bin runs the compiled CLI in its own process (ADR 0042), so a signal sent to its pid reaches
 * devflow itself: the signal tests use it.
 */
export type DevflowLauncher = "bin" | "in-process";

export const SIGNAL_TEST_LAUNCHER: DevflowLauncher = "bin";

function launcherArgs(launcher: DevflowLauncher): string[] {
  return launcher === "bin" ? [BIN] : ["--import", "tsx", MAIN];
}

/**
 * The real CLI as a detached process group (so a test can SIGKILL it with everything it started,
 * as a crash would, or send the group a SIGINT as a terminal's Ctrl-C does), stdout and stderr
 * collected. The group dies with the test that started it (test-owned-groups.ts), whether the test
 * stopped it, threw first or timed out.
 */
export function startDevflow(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  opts: { launcher?: DevflowLauncher } = {},
) {
  const child = spawn(process.execPath, [...launcherArgs(opts.launcher ?? "bin"), ...args], {
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  if (child.pid !== undefined) ownGroupForTest(child.pid);
  let stderr = "";
  let stdout = "";
  child.stderr.on("data", (d) => {
    stderr += String(d);
  });
  child.stdout.on("data", (d) => {
    stdout += String(d);
  });
  const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, exit, stderr: () => stderr, stdout: () => stdout };
}

/** Waits until `path` exists, or throws after `ms`. */
export async function waitForFile(path: string, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!existsSync(path)) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${path}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
