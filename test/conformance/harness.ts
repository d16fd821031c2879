import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { SourceEnv } from "../../src/coders/cli/types.js";
import { findExecutable } from "../../src/process/find-executable.js";
import { PACKAGE_ROOT } from "../../src/util/paths.js";

/** The stub CLIs (test fixtures): one `<cli>.mjs` per backend, exposed on PATH as `<cli>`. */
export const STUBS_DIR = join(PACKAGE_ROOT, "test", "stubs");

/** What a stub saw: its argv, cwd, whole environment and everything it read from stdin. */
export interface StubCall {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  stdin: string;
  /** Junie stub: the custom model profile it found in JUNIE_HOME/models. */
  profile?: Record<string, unknown> | null;
  /** aider stub: the content of --message-file. */
  message?: string | null;
}

/** A temp git repo (the worktree) with one base commit, and an attempt dir: what every backend runs in. */
export interface CoderWorld {
  root: string;
  worktree: string;
  attemptDir: string;
  /** The per-run scratch dir the coder may write (prompt file, CLI config home); not the attempt dir. */
  scratchDir: string;
  baseSha: string;
  /** Where a hanging command writes the pid of the grandchild it left running. */
  pidFile: string;
  /** Created by a hanging command once it runs (abort tests wait for it). */
  startedFile: string;
  git(args: string[]): string;
  cleanup(): void;
}

/** A CoderWorld plus a bin dir holding the stub under the CLI's name. */
export interface StubWorld extends CoderWorld {
  binDir: string;
  recordFile: string;
  /** PATH with only the stub, node and git: a real CLI installed on the machine is never picked up. */
  path: string;
  /** The environment backends read credentials from: PATH, a temp HOME, `extra`. */
  sourceEnv(extra?: Record<string, string>): SourceEnv;
  /** Variables selecting the stub's behaviour, passed as the request's env. */
  stubEnv(scenario: string, extra?: Record<string, string>): Record<string, string>;
  readCall(): StubCall;
}

function toolDir(command: string): string {
  const found = findExecutable(command, process.env.PATH);
  if (found === null) throw new Error(`the conformance suite needs "${command}" on PATH`);
  return dirname(found);
}

/** A temp git repo with a README committed on main and an empty attempt dir (no stub, no bin dir). */
export function createCoderWorld(name: string): CoderWorld {
  const root = mkdtempSync(join(tmpdir(), `devflow-conformance-${name}-`));
  const worktree = join(root, "worktree");
  const attemptDir = join(root, "attempts", "attempt-001");
  const scratchDir = join(root, "scratch");
  const home = join(root, "home");
  for (const dir of [worktree, attemptDir, home]) mkdirSync(dir, { recursive: true });
  const gitEnv = { PATH: defaultToolPath(), HOME: home, GIT_CONFIG_NOSYSTEM: "1" };
  const git = (args: string[]): string =>
    execFileSync("git", args, {
      cwd: worktree,
      env: gitEnv,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    }).trim();
  git(["init", "-q", "-b", "main"]);
  writeFileSync(join(worktree, "README.md"), "# fixture\n");
  git(["add", "README.md"]);
  git(["-c", "user.name=test", "-c", "user.email=test@example.invalid", "commit", "-q", "-m", "base"]);
  return {
    root,
    worktree,
    attemptDir,
    scratchDir,
    baseSha: git(["rev-parse", "HEAD"]),
    pidFile: join(root, "grandchild.pid"),
    startedFile: join(root, "started"),
    git,
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

function defaultToolPath(): string {
  return [dirname(process.execPath), toolDir("git")].join(delimiter);
}

export function createStubWorld(cli: string): StubWorld {
  const world = createCoderWorld(cli);
  const binDir = join(world.root, "bin");
  mkdirSync(binDir);
  symlinkSync(join(STUBS_DIR, `${cli}.mjs`), join(binDir, cli));
  const path = [binDir, defaultToolPath()].join(delimiter);
  const home = join(world.root, "home");
  const recordFile = join(world.root, "stub-call.json");
  return {
    ...world,
    binDir,
    recordFile,
    path,
    sourceEnv: (extra = {}) => ({ PATH: path, HOME: home, LANG: "C.UTF-8", ...extra }),
    stubEnv: (scenario, extra = {}) => ({
      STUB_SCENARIO: scenario,
      STUB_RECORD_FILE: recordFile,
      STUB_PID_FILE: world.pidFile,
      STUB_STARTED_FILE: world.startedFile,
      ...extra,
    }),
    readCall: () => {
      if (!existsSync(recordFile)) throw new Error(`the ${cli} stub was never called (no ${recordFile})`);
      const parsed: StubCall = JSON.parse(readFileSync(recordFile, "utf8"));
      return parsed;
    },
  };
}

/** Polls until `condition` holds; fails naming `what` when it never does (a bound, not a speed claim). */
export async function waitFor(condition: () => boolean, what: string, boundMs = 20_000): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await sleep(20);
  }
}

/** True when `pid` no longer runs; a zombie (killed, not yet reaped by PID 1) counts as gone. */
export function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
    return state === "Z" || state === "X";
  } catch {
    return true;
  }
}
