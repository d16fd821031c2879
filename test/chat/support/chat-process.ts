import { execFile, spawn } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { z } from "zod";
import { PACKAGE_ROOT } from "../../../src/util/paths.js";
import { DEVFLOW_BIN } from "../../support/devflow-bin.js";

const PTY_DRIVER = join(PACKAGE_ROOT, "test", "chat", "support", "pty-drive.py");

/** argv of a real `devflow` process with the chat and route commands. */
export function devflowArgv(...args: string[]): string[] {
  return [process.execPath, DEVFLOW_BIN, ...args];
}

export interface ProcessRun {
  code: number | null;
  out: string;
  err: string;
}

/** Runs devflow with `stdin` piped in (one message per line) and waits for it to exit. */
export function runPiped(args: string[], stdin: string, env: NodeJS.ProcessEnv = {}): Promise<ProcessRun> {
  const [command = "", ...rest] = devflowArgv(...args);
  return new Promise((resolve, reject) => {
    const child = spawn(command, rest, {
      cwd: PACKAGE_ROOT,
      env: { ...process.env, ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      err += d.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, out, err }));
    child.stdin.end(stdin);
  });
}

export type PtyStep = { expect: string } | { send: string } | { wait_file: string };

const PtyResult = z.object({
  output: z.string(),
  exit_code: z.number().nullable(),
  /** Index of the step that never happened (null: all ran), or "exit" when the process hung. */
  failed_step: z.union([z.number(), z.literal("exit")]).nullable(),
});
export type PtyRun = z.infer<typeof PtyResult>;

/** Runs devflow in a pseudo-terminal (python3's pty module) and plays the steps against it. */
export async function runPty(args: string[], steps: PtyStep[], timeoutSeconds = 90): Promise<PtyRun> {
  const spec = {
    argv: devflowArgv(...args),
    cwd: PACKAGE_ROOT,
    env: { TERM: "xterm" },
    steps,
    timeout: timeoutSeconds,
  };
  const { stdout } = await promisify(execFile)("python3", [PTY_DRIVER, JSON.stringify(spec)], {
    maxBuffer: 16 * 1024 * 1024,
  });
  return PtyResult.parse(JSON.parse(stdout));
}

/** A devflow process whose stdin stays open: lines are sent one at a time while it runs. */
export interface LiveChat {
  readonly pid: number;
  /** Everything printed so far. */
  output(): { out: string; err: string };
  /** Resolves once stdout contains `text` (rejects after `timeoutMs`, or if the process exits first). */
  waitForOut(text: string, timeoutMs?: number): Promise<void>;
  send(line: string): void;
  /** Ends stdin (end of input: the chat leaves after the turns sent so far). */
  end(): void;
  kill(signal: NodeJS.Signals): void;
  /** Resolves when the process has exited. */
  readonly done: Promise<ProcessRun & { signal: NodeJS.Signals | null }>;
}

/** Starts devflow with piped stdin that stays open until `end()`. */
export function startPiped(args: string[], env: NodeJS.ProcessEnv = {}): LiveChat {
  const [command = "", ...rest] = devflowArgv(...args);
  const child = spawn(command, rest, {
    cwd: PACKAGE_ROOT,
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  let exited = false;
  const waiters = new Set<() => void>();
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString();
    for (const w of waiters) w();
  });
  child.stderr.on("data", (d: Buffer) => {
    err += d.toString();
  });
  const done = new Promise<ProcessRun & { signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      exited = true;
      for (const w of waiters) w();
      resolve({ code, signal, out, err });
    });
  });
  return {
    pid: child.pid ?? -1,
    output: () => ({ out, err }),
    waitForOut: (text, timeoutMs = 60_000) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no "${text}" on stdout after ${timeoutMs} ms; out: ${out}\nerr: ${err}`));
        }, timeoutMs);
        const check = () => {
          if (out.includes(text)) {
            clearTimeout(timer);
            waiters.delete(check);
            resolve();
          } else if (exited) {
            clearTimeout(timer);
            waiters.delete(check);
            reject(new Error(`exited before printing "${text}"; out: ${out}\nerr: ${err}`));
          }
        };
        waiters.add(check);
        check();
      }),
    send: (line) => {
      child.stdin.write(`${line}\n`);
    },
    end: () => {
      child.stdin.end();
    },
    kill: (signal) => {
      child.kill(signal);
    },
    done,
  };
}
