/**
 * The crash suite's harness (ADR 0033): runs the real CLI (`bin/devflow.js`, replay mode, a scripted
 * `command:` coder) on the demo repository, SIGKILLed at named points through the test hook
 * `DEVFLOW_TEST_KILL_AT` (src/util/test-kill-point.ts), and reads back what a run left.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import pty from "@lydell/node-pty";
import { Lesson } from "../../src/artifacts/schemas/index.js";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { openTaskStore } from "../../src/home/index.js";
import type { Cassette } from "../../src/models/cassette.js";
import { PACKAGE_ROOT } from "../../src/util/paths.js";
import { KILL_NOTICE, TEST_KILL_AT_ENV } from "../../src/util/test-kill-point.js";
import { coderScript, DEMO_REQUEST, demoCassette, tempDir, writeCassette } from "../support/lane-harness.js";

const BIN = join(PACKAGE_ROOT, "bin", "devflow.js");
export const TASK = "crash";

/** Near miss first (attempt 1 fails the seam), the real fix once the prompt carries a lesson. */
export const TWO_ATTEMPT_CODER = `
import * as fs from "node:fs";
const prompt = fs.readFileSync(process.env.DEVFLOW_PROMPT_FILE, "utf8");
const f = "src/csv-import.js";
const src = fs.readFileSync(f, "utf8");
if (!prompt.includes("Known errors from prior attempts")) {
  fs.writeFileSync(f, src.replace("if (!EMAIL.test(row.email))", "if (!EMAIL.test(row.email.trimEnd()))"));
} else {
  fs.writeFileSync(f, src.replace("row.email.trimEnd()", "row.email.trim()"));
}
`;

export interface CrashRepo {
  /** The temp dir everything of this run lives in (the repository, TMPDIR of devflow). */
  root: string;
  repo: string;
  tmp: string;
  args: string[];
  /** Run on a pseudo-terminal, every question answered with ANSWER. */
  interactive: boolean;
}

/** What devflow() types at every question of an interactive run. */
export const ANSWER =
  "The email field only: ' alice@example.com ' has a space on each side; names stay as they are.";

/**
 * A fresh demo repository and the CLI arguments of one task on it: `--yes --json` (no question is
 * asked: a task that needs answers ends needs_more_context) unless `interactive` (then the CLI runs
 * on a terminal, devflow() answers its questions, and a plan_invalid asks to re-plan).
 */
export function crashRepo(
  extraArgs: string[] = [],
  coderSource = TWO_ATTEMPT_CODER,
  cassette: Cassette = demoCassette(),
  interactive = false,
): CrashRepo {
  const root = tempDir("devflow-crash-");
  const repo = createFixtureRepo("csv-import", join(root, "csv-import"));
  const tmp = join(root, "tmp");
  mkdirSync(tmp);
  const args = [
    "iterate",
    DEMO_REQUEST,
    "-r",
    repo,
    "--task-id",
    TASK,
    "--replay",
    writeCassette(cassette),
    "--coder",
    coderScript(coderSource),
    ...(interactive ? [] : ["--no-input", "--json"]),
    ...extraArgs,
  ];
  return { root, repo, tmp, args, interactive };
}

export interface CliExit {
  code: number | null;
  stderr: string;
  /** The point the hook killed the process at (`point@n`), or null when it ended otherwise. */
  killedAt: string | null;
}

/** One CLI process; `killAt` arms the hook. The whole process group of the CLI is gone on return. */
export async function devflow(
  run: CrashRepo,
  opts: { resume?: boolean; killAt?: string; onStart?: (pid: number) => void } = {},
): Promise<CliExit> {
  const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: run.tmp };
  delete env[TEST_KILL_AT_ENV];
  if (opts.killAt) env[TEST_KILL_AT_ENV] = opts.killAt;
  const args = [BIN, ...run.args, ...(opts.resume ? ["--resume"] : [])];
  if (run.interactive) return onTerminal(args, env, opts.onStart);
  const child = spawn(process.execPath, args, {
    detached: true,
    env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  opts.onStart?.(child.pid as number);
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr += String(d);
  });
  const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
  // What a crash of the CLI kills: its own process group (the launcher and devflow). Children that
  // devflow started in their own groups are what the sweep is for.
  try {
    process.kill(-(child.pid as number), "SIGKILL");
  } catch {}
  const killedAt = new RegExp(`${escapeRegExp(KILL_NOTICE)}(\\S+)`).exec(stderr)?.[1] ?? null;
  return { code, stderr, killedAt };
}

/**
 * The CLI on a pseudo-terminal (stdin and stderr are TTYs: devflow asks its questions there), each
 * "Your answer: " prompt answered with ANSWER. Output is one stream on a terminal: `stderr` is it.
 */
async function onTerminal(
  args: string[],
  env: NodeJS.ProcessEnv,
  onStart?: (pid: number) => void,
): Promise<CliExit> {
  const term = pty.spawn(process.execPath, args, { cols: 200, rows: 50, env, cwd: PACKAGE_ROOT });
  onStart?.(term.pid);
  let output = "";
  let answered = 0;
  term.onData((d) => {
    output += d;
    const prompts = output.split("Your answer: ").length - 1;
    for (; answered < prompts; answered++) term.write(`${ANSWER}\r`);
  });
  const code = await new Promise<number | null>((resolve) =>
    term.onExit(({ exitCode, signal }) => resolve(signal ? null : exitCode)),
  );
  try {
    process.kill(-term.pid, "SIGKILL");
  } catch {}
  const killedAt = new RegExp(`${escapeRegExp(KILL_NOTICE)}(\\S+)`).exec(output)?.[1] ?? null;
  return { code, stderr: output, killedAt };
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** What decides "the same verdict": compared between an uninterrupted run and a crashed one. */
export interface Verdict {
  verdict: string | null;
  reason: string | null;
  attempts: Array<[string, string]>;
  /** The tree of the commit on the user's task branch and its parent (the base). */
  commitTree: string | null;
  commitParentIsBase: boolean;
  lessons: Array<[string, string | undefined]>;
}

export async function verdictOf(run: CrashRepo): Promise<Verdict> {
  const store = openTaskStore(run.repo, TASK);
  const record = await store.read("iterator_run");
  const commit = record?.terminal?.commit ?? null;
  const git = (...a: string[]) => spawnSync("git", a, { cwd: run.repo, encoding: "utf8" }).stdout.trim();
  const lessons = await store.readJsonl("lessons.jsonl", Lesson);
  return {
    verdict: record?.terminal?.verdict ?? null,
    reason: record?.terminal?.reason ?? null,
    attempts: (record?.attempts ?? []).map((a) => [a.attempt_id, a.verdict]),
    commitTree: commit ? git("rev-parse", `${commit}^{tree}`) : null,
    commitParentIsBase: commit
      ? git("rev-parse", `${commit}^`) === record?.workspace.base_commit &&
        git("rev-parse", `refs/heads/devflow/${TASK}`) === commit
      : false,
    lessons: lessons.map((l) => [l.attempt_id, l.source]),
  };
}

/**
 * What else an uninterrupted run leaves that a crashed and resumed one must leave the same (beyond
 * Verdict): the terminal's questions, the run's states and their reasons in order, the task's
 * revision, and the promotion handoff with the revisions it cites (its write time aside).
 */
export interface Stop {
  questions: string[];
  states: Array<[string, string]>;
  taskRevision: number | null;
  handoff: Record<string, unknown> | null;
}

export async function stopOf(run: CrashRepo): Promise<Stop> {
  const store = openTaskStore(run.repo, TASK);
  const record = await store.read("iterator_run");
  const handoff = await store.read("promotion_handoff");
  const { created_at: _at, ...handoffSubstance } = handoff ?? { created_at: "" };
  return {
    questions: record?.terminal?.questions ?? [],
    states: (record?.state_history ?? []).map((s) => [s.state, s.reason]),
    taskRevision: (await store.read("task_artifact"))?.revision ?? null,
    handoff: handoff ? handoffSubstance : null,
  };
}

/** Every artifact of the task reads back valid (the store validates on read); throws otherwise. */
export async function readAllArtifacts(run: CrashRepo): Promise<void> {
  const store = openTaskStore(run.repo, TASK);
  for (const name of ["iterator_run", "task_artifact", "observation_artifact", "promotion_handoff"] as const)
    await store.read(name);
  await store.readJsonl("lessons.jsonl", Lesson);
  const { DevflowEvent } = await import("../../src/artifacts/schemas/index.js");
  await store.readJsonl("events.jsonl", DevflowEvent);
  const history = await store.history("iterator_run");
  if (history.join() !== history.map((_, i) => i + 1).join())
    throw new Error(`iterator_run history is not monotonic: ${history.join()}`);
}

/** Checkouts and records a finished task must not have left: anything beyond its own checkouts. */
export function leftoverCheckouts(run: CrashRepo): string[] {
  const ls = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);
  const devflow = join(run.repo, ".devflow");
  return [
    ...ls(join(devflow, "worktrees"))
      .filter((e) => e !== TASK && e !== ".idle")
      .map((e) => `worktrees/${e}`),
    // The task's own coder checkout kept idle for the next task (ADR 0050, fourth slice) is not a
    // leftover; anything else in `.idle/` is.
    ...ls(join(devflow, "worktrees", ".idle"))
      .filter((e) => e !== TASK && e !== `${TASK}.index`)
      .map((e) => `worktrees/.idle/${e}`),
    ...ls(join(devflow, "verify"))
      .filter((e) => e !== TASK && e !== `${TASK}.git`)
      .map((e) => `verify/${e}`),
    ...ls(join(devflow, "iterate", TASK, "process-groups")).map((e) => `process-groups/${e}`),
    // Only devflow's own scratch (tsx keeps its compile cache in TMPDIR too).
    ...ls(run.tmp)
      .filter((e) => e.startsWith("devflow-"))
      .map((e) => `TMPDIR/${e}`),
  ];
}
