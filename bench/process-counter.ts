/**
 * Counts the child processes devflow starts, by program name, for `npm run bench`. It wraps
 * `node:child_process` (spawn, spawnSync, execFile, execFileSync, exec, execSync) and re-syncs the
 * ESM named exports, so execa, simple-git and devflow's own calls all go through the counter.
 * Processes started by those children (a test runner's workers, git's own helpers) are not seen:
 * the figure is what devflow itself spawns. Install before importing anything that spawns.
 */
import { createRequire, syncBuiltinESMExports } from "node:module";

const require = createRequire(import.meta.url);
const childProcess = require("node:child_process") as Record<string, unknown>;

const counts = new Map<string, number>();

function programOf(file: unknown): string {
  const name = String(file).split("/").pop() ?? String(file);
  return name.split(" ")[0] ?? name;
}

let installed = false;

/** Wraps the process-starting functions once; later calls are no-ops. */
export function installProcessCounter(): void {
  if (installed) return;
  installed = true;
  for (const fn of ["spawn", "spawnSync", "execFile", "execFileSync", "exec", "execSync"]) {
    const original = childProcess[fn] as (...args: unknown[]) => unknown;
    childProcess[fn] = function counted(this: unknown, ...args: unknown[]) {
      const program = programOf(args[0]);
      counts.set(program, (counts.get(program) ?? 0) + 1);
      return original.apply(this, args);
    };
  }
  syncBuiltinESMExports();
}

/** Processes started since the last reset, by program (`git`, `node`, `sh`, ...). */
export function processCounts(): Record<string, number> {
  return Object.fromEntries([...counts].sort((a, b) => b[1] - a[1]));
}

export function totalProcesses(): number {
  let n = 0;
  for (const v of counts.values()) n += v;
  return n;
}

export function resetProcessCounts(): void {
  counts.clear();
}
