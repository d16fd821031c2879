import { existsSync, readFileSync } from "node:fs";
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
