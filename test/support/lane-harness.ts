import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { DevflowEvent } from "../../src/artifacts/schemas/index.js";
import type { ArtifactStore } from "../../src/artifacts/store.js";
import { createFixtureRepo } from "../../src/fixtures/create-fixture-repo.js";
import { DEMO_CASSETTE, DEMO_CODER_SCRIPT, DEMO_REQUEST } from "../../src/fixtures/demo.js";
import { openTaskStore } from "../../src/home/index.js";
import type { LaneOptions } from "../../src/lanes/iterate/lane/deps.js";
import type { QuestionsInterrupt } from "../../src/lanes/iterate/nodes/ask.js";
import { type IterateRunOptions, iterateLane } from "../../src/lanes/iterate/run.js";
import { answerLane, type IterateOutcome, type IterateResult } from "../../src/lanes/outcome.js";
import type { Cassette } from "../../src/models/cassette.js";
import { isGitUrl } from "../../src/workspace/index.js";

export { DEMO_REQUEST };

/** A deep copy of the demo cassette, for tests to vary one answer at a time. */
export function demoCassette(): Cassette {
  return JSON.parse(readFileSync(DEMO_CASSETTE, "utf8")) as Cassette;
}

export function tempDir(prefix = "devflow-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function writeCassette(cassette: Cassette): string {
  const path = join(tempDir("devflow-cassette-"), "cassette.json");
  writeFileSync(path, JSON.stringify(cassette, null, 2));
  return path;
}

/** A coder backend from a Node script body (runs in the worktree with DEVFLOW_PROMPT_FILE set). */
export function coderScript(source: string): string {
  const path = join(tempDir("devflow-coder-"), "coder.mjs");
  writeFileSync(path, source);
  chmodSync(path, 0o755);
  return `command:node ${JSON.stringify(path)}`;
}

export const NEAR_MISS_CODER = `command:node ${JSON.stringify(DEMO_CODER_SCRIPT)}`;

/** Applies the real fix at once. */
export const CORRECT_FIX = `
import { readFileSync, writeFileSync } from "node:fs";
const f = "src/csv-import.js";
writeFileSync(f, readFileSync(f, "utf8").replace("if (!EMAIL.test(row.email))", "if (!EMAIL.test(row.email.trim()))"));
console.log("Trimmed the email before validating it.");
`;

export interface LaneRun {
  /** The repository devflow worked in: the given path, or for a URL its clone `<baseDir>/<taskId>`. */
  repo: string;
  /** What the lane finished with (also for a handoff); null when it threw or still waits for answers. */
  result: IterateResult | null;
  outcome: IterateOutcome | null;
  error: unknown;
  store: ArtifactStore;
  events: DevflowEvent[];
}

export interface LaneRunInput {
  cassette?: Cassette;
  coder: string;
  lane?: Partial<LaneOptions>;
  /** A path, or a git URL (then cloned into `baseDir`, default a fresh temp dir). */
  repo?: string;
  baseDir?: string;
  request?: string;
  taskId?: string;
  resume?: boolean;
  extra?: Partial<IterateRunOptions>;
  /** Makes the run interactive: each question the lane pauses with is answered here, then it resumes. */
  onQuestions?: (q: QuestionsInterrupt) => Promise<string>;
}

export const TASK_ID = "trim-emails";

/** Runs the real lane (real git, real processes, replayed model) and captures the outcome. */
export async function runLane(input: LaneRunInput): Promise<LaneRun> {
  const repo = input.repo ?? createFixtureRepo("csv-import");
  const events: DevflowEvent[] = [];
  const taskId = input.taskId ?? TASK_ID;
  const baseDir = input.baseDir ?? (isGitUrl(repo) ? tempDir("devflow-clones-") : ".");
  const home = isGitUrl(repo) ? resolve(baseDir, taskId) : repo;
  let outcome: IterateOutcome | null = null;
  let error: unknown = null;
  try {
    const lane = iterateLane({
      repo,
      baseDir,
      model: "gpt-4.1-mini",
      coder: input.coder,
      mode: "replay",
      cassettePath: writeCassette(input.cassette ?? demoCassette()),
      lane: { maxJudgeAttempts: 3, baseTimeoutMs: 60_000, commandTimeoutMs: 60_000, ...input.lane },
      onProgress: (event) => events.push(event),
      interactive: Boolean(input.onQuestions),
      ...input.extra,
    });
    const first = await lane.run({
      request: input.request ?? DEMO_REQUEST,
      taskId,
      resume: input.resume ?? false,
      ...input.extra,
    });
    const ask = input.onQuestions;
    outcome = ask
      ? await answerLane(
          first,
          (q) => ask({ kind: q.asks, taskId: q.task_id, questions: q.questions }),
          lane.resume,
        )
      : first;
  } catch (e) {
    error = e;
  }
  const result = outcome && outcome.kind !== "needs_answers" ? outcome.result : null;
  return { repo: home, result, outcome, error, store: openTaskStore(home, taskId), events };
}

/**
 * A lenient critic: the demo critic's answer (every criterion "met") and the iterator's lesson
 * repeated `times` times, so every attempt that reaches the critic is approved and only devflow's
 * own verifiers stand between a coder and \`completed\`.
 */
export function withLenientCritic(cassette: Cassette, times = 4): Cassette {
  for (const role of ["critic", "iterator"] as const) {
    const answer = cassette.calls[role]?.at(-1);
    if (!answer) throw new Error(`cassette has no ${role} answer to repeat`);
    cassette.calls[role] = Array.from({ length: times }, () => structuredClone(answer));
  }
  return cassette;
}

/** The demo cassette with the Observer's final answer changed: the usual way to script an observation. */
export function withObserverAnswer(
  patch: Record<string, unknown>,
  cassette: Cassette = demoCassette(),
): Cassette {
  const final = cassette.calls.observer?.at(-1);
  if (!final || !("structured" in final)) throw new Error("demo cassette lost its observer answer");
  final.structured = { ...final.structured, ...patch };
  return cassette;
}

/**
 * The demo cassette where the critic of attempt 1 judges the task's assumptions wrong
 * (plan_invalid): interactive runs ask to re-plan, and the re-frame (a second Framer and Observer
 * answer) is followed by an attempt the demo critic approves.
 */
export function planInvalidCassette() {
  const cassette = demoCassette();
  const framer = cassette.calls.framer?.[0];
  const observerFinal = cassette.calls.observer?.at(-1);
  const critic = cassette.calls.critic?.[0];
  if (!framer || !observerFinal || !critic || !("structured" in critic))
    throw new Error("demo cassette changed shape");
  const invalid = {
    structured: {
      ...critic.structured,
      plan_invalid: true,
      summary: "The CSV also has a BOM: the task assumed plain ASCII.",
    },
  };
  cassette.calls.framer = [framer, framer];
  cassette.calls.observer = [...(cassette.calls.observer ?? []), observerFinal];
  cassette.calls.critic = [invalid, critic];
  return cassette;
}

/**
 * The demo cassette whose first Framer answer has a blocking unknown (needs_more_context); the
 * second, after the user's answer, is the demo's (only an interactive run asks for it).
 */
export function needsAnswersCassette(question: string): Cassette {
  const cassette = demoCassette();
  const framed = cassette.calls.framer?.[0];
  if (!framed || !("structured" in framed)) throw new Error("demo cassette lost its framer answer");
  const unsure = {
    structured: {
      ...framed.structured,
      blocking_unknowns: [question],
      recommended_next_step: "needs_more_context",
    },
  };
  cassette.calls.framer = [unsure, framed];
  return cassette;
}
