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
const gitCommands = new Map<string, number>();

/** `git -c a=b -c c=d rev-parse ...` -> `rev-parse` (simple-git passes the whole argv as one array). */
function gitSubcommand(args: unknown): string {
  const argv = Array.isArray(args) ? args.map(String) : [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "-c" || argv[i] === "-C") i++;
    else if (!argv[i]?.startsWith("-")) return argv[i] ?? "?";
  }
  return "?";
}

function programOf(file: unknown): string {
  const name = String(file).split("/").pop() ?? String(file);
  return name.split(" ")[0] ?? name;
}

/**
 * `BENCH_GIT_TRACE=<file>`: appends each git command line devflow starts and the devflow frames
 * that started it (src/ only, git helpers left out), to tell which node asks which question.
 */
function traceGit(file: string, args: unknown): void {
  const frames = (new Error().stack ?? "")
    .split("\n")
    .filter((line) => line.includes("/src/") && !/\/src\/workspace\/git(-process)?\.[jt]s/.test(line))
    .slice(0, 4)
    .map((line) => line.trim());
  const fs = require("node:fs") as typeof import("node:fs");
  fs.appendFileSync(file, `${JSON.stringify(args)}\n${frames.join("\n")}\n\n`);
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
      if (program === "git") {
        const sub = gitSubcommand(args[1]);
        gitCommands.set(sub, (gitCommands.get(sub) ?? 0) + 1);
        if (process.env.BENCH_GIT_TRACE) traceGit(process.env.BENCH_GIT_TRACE, args[1]);
      }
      return original.apply(this, args);
    };
  }
  syncBuiltinESMExports();
}

/** Processes started since the last reset, by program (`git`, `node`, `sh`, ...). */
export function processCounts(): Record<string, number> {
  return Object.fromEntries([...counts].sort((a, b) => b[1] - a[1]));
}

/** git processes since the last reset, by subcommand. */
export function gitCommandCounts(): Record<string, number> {
  return Object.fromEntries([...gitCommands].sort((a, b) => b[1] - a[1]));
}

export function totalProcesses(): number {
  let n = 0;
  for (const v of counts.values()) n += v;
  return n;
}

export function resetProcessCounts(): void {
  counts.clear();
  gitCommands.clear();
}
