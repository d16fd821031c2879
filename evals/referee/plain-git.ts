import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";

/**
 * The referee's own git and process runs: the `git` binary and `sh`, nothing of devflow's, so a
 * bug in devflow's workspace code cannot make the referee see what devflow saw.
 */
const run = promisify(execFile);

/** A small clean environment: nothing devflow or the coder set leaks into the referee's runs. */
function cleanEnv(): NodeJS.ProcessEnv {
  const keep = ["PATH", "HOME", "TMPDIR", "LANG", "SYSTEMROOT"];
  const env: NodeJS.ProcessEnv = { GIT_TERMINAL_PROMPT: "0" };
  for (const key of keep) if (process.env[key] !== undefined) env[key] = process.env[key];
  return env;
}

export async function git(cwd: string, args: string[]): Promise<string> {
  const { stdout } = await run("git", args, { cwd, env: cleanEnv(), maxBuffer: 16 * 1024 * 1024 });
  return stdout.trim();
}

/** The commit a ref names in `repo`, or null when there is no such ref. */
export async function refCommit(repo: string, ref: string): Promise<string | null> {
  try {
    return await git(repo, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]);
  } catch {
    return null;
  }
}

/**
 * A fresh `git clone` of `repo` in a new temp dir, checked out at `ref` (a branch of `repo` or a
 * full commit id), plus what the fixture needs to run (its `node_modules`, linked, when it has one).
 */
export async function cloneAt(repo: string, ref: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "devflow-referee-"));
  const checkout = join(dir, "clone");
  try {
    await git(dir, ["clone", "--quiet", "--no-hardlinks", "--no-checkout", repo, checkout]);
    const at = /^[0-9a-f]{40}$/.test(ref) ? ref : `refs/remotes/origin/${ref}`;
    await git(checkout, ["checkout", "--quiet", "--detach", at]);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const deps = join(repo, "node_modules");
  if (existsSync(deps) && !existsSync(join(checkout, "node_modules")))
    symlinkSync(deps, join(checkout, "node_modules"), "dir");
  return checkout;
}

export function removeClone(checkout: string): void {
  rmSync(dirname(checkout), { recursive: true, force: true });
}

export function writeFiles(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    const file = join(root, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
}

export interface ShellRun {
  exitCode: number;
  output: string;
}

/** `sh -c command` in `cwd` with a clean environment; a timeout or a signal is a non-zero exit. */
export async function shell(cwd: string, command: string, timeoutMs: number): Promise<ShellRun> {
  try {
    const { stdout, stderr } = await run("sh", ["-c", command], {
      cwd,
      env: cleanEnv(),
      timeout: timeoutMs,
      killSignal: "SIGKILL",
      maxBuffer: 16 * 1024 * 1024,
    });
    return { exitCode: 0, output: `${stdout}${stderr}` };
  } catch (error) {
    const e = error as { code?: unknown; stdout?: string; stderr?: string; message?: string };
    const exitCode = typeof e.code === "number" ? e.code : 1;
    return { exitCode, output: `${e.stdout ?? ""}${e.stderr ?? ""}` || String(e.message) };
  }
}
