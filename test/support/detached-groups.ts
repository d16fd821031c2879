import { spawn } from "node:child_process";
import { afterAll } from "vitest";

/**
 * Processes a test starts in process groups of their own (as devflow's children run), to be found,
 * recorded or swept by the code under test. Call at the top of a test file: the returned function
 * starts one such group leader and returns its pid; every group it started is SIGKILLed after the
 * file's tests, whatever the code under test did to it.
 */
export function detachedGroups(): (command: string, args: string[], cwd?: string) => number {
  const started: number[] = [];
  afterAll(() => {
    for (const pid of started) {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {}
    }
  });
  return (command, args, cwd) => {
    const child = spawn(command, args, { detached: true, stdio: "ignore", ...(cwd ? { cwd } : {}) });
    child.unref();
    started.push(child.pid as number);
    return child.pid as number;
  };
}
