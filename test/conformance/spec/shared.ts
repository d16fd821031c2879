import { existsSync, readdirSync, readFileSync } from "node:fs";
import { expect } from "vitest";
import type { CoderRunResult } from "../../../src/coders/contract.js";
import { type CoderWorld, processGone, waitFor } from "../harness.js";

/** Quotes, a `$VAR`, a newline and non-ASCII: any shell or re-quoting on the way would alter it. */
export const CONFORMANCE_PROMPT =
  "Create stub-edit.txt — say \"hi\" and 'bye'; leave $HOME alone.\nSecond line: ünïcode.";

export const STRIPPED_VARIABLES = {
  EJ_RUNNER_PWD: "/somewhere/else",
  CLAUDECODE: "1",
  CLAUDE_CODE_ENTRYPOINT: "cli",
};
export const HUGE_CAP_BYTES = 256 * 1024;
export const KILL_GRACE_MS = 300;

/**
 * The hang scenarios' grandchild, found by a token in its command line (the world's pid file path,
 * which `hangingGrandchild` puts there), no longer runs: the whole group was killed. By command line,
 * not pid: a confined run (the builtin coder's run_command, ADR 0031) has a /proc of its own, where
 * `$!` is a namespace-local pid.
 */
export async function expectGrandchildGoneByCommandLine(world: CoderWorld): Promise<void> {
  expect(existsSync(world.pidFile), "the hanging command started its grandchild").toBe(true);
  const running = () => processesMentioning(world.pidFile);
  await waitFor(() => running().length === 0, `the grandchild (${world.pidFile}) to be gone`);
  expect(running()).toEqual([]);
}

/** A shell line that starts a grandchild whose command line names the world's pid file (`; :` keeps the shell from exec-ing sleep, which would drop that name), then waits. */
export const hangingGrandchild = (world: CoderWorld): string =>
  `sh -c 'sleep 300; :' ${JSON.stringify(world.pidFile)} & echo $! > ${JSON.stringify(world.pidFile)}; touch ${JSON.stringify(world.startedFile)}; wait`;

function processesMentioning(token: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (
        readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").includes(token) &&
        !processGone(Number(entry))
      )
        found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** The hang scenarios' grandchild (its pid in world.pidFile) no longer runs: the whole group was killed. */
export async function expectGrandchildGone(world: CoderWorld): Promise<void> {
  expect(existsSync(world.pidFile)).toBe(true);
  const grandchild = Number(readFileSync(world.pidFile, "utf8"));
  await waitFor(() => processGone(grandchild), `grandchild ${grandchild} to be gone`);
  expect(processGone(grandchild)).toBe(true);
}

/** The worktree holds exactly one commit over the base, and the change against the base is `file`. */
export function expectOneCommitChanging(world: CoderWorld, file: string): void {
  const commits = world
    .git(["rev-list", `${world.baseSha}..HEAD`])
    .split("\n")
    .filter(Boolean);
  expect(commits).toHaveLength(1);
  expect(world.git(["diff", "--name-only", world.baseSha])).toBe(file);
}

/** Starts a run, aborts it once its hanging command has started, and returns its result. */
export async function abortOnceStarted(
  world: CoderWorld,
  start: (signal: AbortSignal) => Promise<CoderRunResult>,
): Promise<CoderRunResult> {
  const controller = new AbortController();
  const running = start(controller.signal);
  await waitFor(() => existsSync(world.startedFile), "the hanging command to start");
  controller.abort();
  return running;
}
