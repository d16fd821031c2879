import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { DEVFLOW_BIN as BIN } from "./devflow-bin.js";

/**
 * The real CLI as a detached process group (so a test can SIGKILL it with everything it started,
 * as a crash would), stderr collected.
 */
export function startDevflow(args: string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, [BIN, ...args], {
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr += String(d);
  });
  const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, exit, stderr: () => stderr };
}

/** Waits until `path` exists, or throws after `ms`. */
export async function waitForFile(path: string, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!existsSync(path)) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${path}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
