import { checkoutEndFields } from "../artifacts/checkout-end.js";
import type { DevflowEvent, EventLine, PlanRun, ResultLine } from "../artifacts/schemas/index.js";
import { type ErrorCategory, isDevflowError, messageOf } from "../errors/index.js";
import type { IterateResult, NeedsAnswers } from "../lanes/outcome.js";
import type { RunEnding } from "./summary.js";

type Out = (text: string) => void;

/**
 * The `--json` stdout protocol in one place (ADR 0046): event lines while a run goes, then exactly
 * one result line, on success and on failure. Every key is snake_case; the shapes are the zod
 * schemas `EventLine` and `ResultLine` (src/artifacts/schemas/cli-lines.ts, schemas/*.schema.json).
 * Other fields of the result (e.g. how to take it) belong here too, so no command hand-writes one.
 */

export function eventLine(event: DevflowEvent): EventLine {
  return { type: "event", ...event };
}

/** The result of a lane that reached a verdict. */
export function iterateResultLine(
  command: string,
  result: IterateResult,
  exitCode: number,
  ending?: RunEnding,
): ResultLine {
  return {
    type: "result",
    command,
    exit_code: exitCode,
    error: null,
    task_id: result.taskId,
    terminal: result.terminal,
    artifact_dir: result.artifactDir,
    worktree: result.worktree,
    branch: result.branch,
    attempts: result.attempts,
    usage: result.usage,
    ...(ending ? { take_result: ending.takeResult, ...checkoutEndFields(ending.checkout) } : {}),
  };
}

/** A task paused with questions nothing could ask (exit 3). */
export function pausedResultLine(
  command: string,
  paused: NeedsAnswers,
  exitCode: number,
  resumeCommand?: string,
): ResultLine {
  return {
    type: "result",
    command,
    exit_code: exitCode,
    error: null,
    task_id: paused.task_id,
    questions: paused.questions,
    ...(resumeCommand ? { resume_command: resumeCommand } : {}),
  };
}

/** What became of a plan (`devflow plan --json`, ADR 0060): how it ran and, for compose, its record. */
export type PlanRan =
  | { ranAs: "compose"; briefPath: string; recordPath: string; run: PlanRun }
  | { ranAs: "iterate" | "not_run"; planId: string; briefPath: string };

export function planResultLine(
  command: string,
  exitCode: number,
  ran: PlanRan,
  iterate?: { result: IterateResult } | { paused: NeedsAnswers },
): ResultLine {
  const base: ResultLine = iterate
    ? "result" in iterate
      ? iterateResultLine(command, iterate.result, exitCode)
      : pausedResultLine(command, iterate.paused, exitCode)
    : plainResultLine(command, exitCode);
  if (ran.ranAs !== "compose")
    return {
      ...base,
      plan: {
        plan_id: ran.planId,
        ran_as: ran.ranAs,
        brief: ran.briefPath,
        record: null,
        state: null,
        gave_up: false,
        reason: null,
        integration_branch: null,
        tasks: [],
        verify: null,
        review: null,
        replans: 0,
        usage: null,
      },
    };
  const { run } = ran;
  return {
    ...base,
    plan: {
      plan_id: run.plan_id,
      ran_as: "compose",
      brief: ran.briefPath,
      record: ran.recordPath,
      state: run.state,
      gave_up: run.gave_up,
      reason: run.terminal?.reason ?? null,
      integration_branch: run.integration_branch,
      tasks: run.tasks.map((t) => ({
        plan_task_id: t.plan_task_id,
        title: t.title,
        status: t.status,
        commit: t.commit,
        verdict: t.verdict,
        attempts: t.attempts,
        reason: t.reason,
      })),
      verify: run.verify?.overall_result ?? null,
      review: run.review?.overall_result ?? null,
      replans: run.replans.filter((r) => r.approved).length,
      usage: run.usage,
    },
  };
}

/** Any other command's outcome: the caller adds its own field (`decision`, …). */
export function plainResultLine(command: string, exitCode: number): ResultLine {
  return { type: "result", command, exit_code: exitCode, error: null };
}

/**
 * A run that ended in an error (exit 1/2): a DevflowError keeps its code and category; a bad
 * command line is USAGE; anything else is INTERNAL. The message is the one printed on stderr.
 */
export function errorResultLine(command: string, error: unknown, exitCode: number): ResultLine {
  const category: ErrorCategory = isDevflowError(error) ? error.category : "internal";
  const code = isDevflowError(error) ? error.code : "INTERNAL";
  return {
    type: "result",
    command,
    exit_code: exitCode,
    error: { code, category, message: messageOf(error) },
  };
}

/** A run stopped by a signal (exit 130/143): the error, and the task and command that continue it. */
export function stoppedResultLine(
  command: string,
  error: unknown,
  exitCode: number,
  stopped: { taskId: string | null; resumeCommand: string | null },
): ResultLine {
  return {
    ...errorResultLine(command, error, exitCode),
    ...(stopped.taskId ? { task_id: stopped.taskId } : {}),
    ...(stopped.resumeCommand ? { resume_command: stopped.resumeCommand } : {}),
  };
}

export function usageResultLine(command: string, message: string, exitCode: number): ResultLine {
  return {
    type: "result",
    command,
    exit_code: exitCode,
    error: { code: "USAGE", category: "usage", message },
  };
}

export function writeLine(out: Out, line: EventLine | ResultLine): void {
  out(`${JSON.stringify(line)}\n`);
}

/**
 * Commands whose `--json` follows this protocol. doctor and playground print their own JSON
 * documents (a report) and are not listed; chat's event lines are its own chat events (ADR 0049).
 */
export const RESULT_LINE_COMMANDS: ReadonlySet<string> = new Set([
  "iterate",
  "demo",
  "route",
  "chat",
  "plan",
]);

/**
 * The command a raw command line asks a result line of (`devflow iterate --json …` → "iterate"),
 * or null. Read from argv, not from commander, because a usage error is thrown before any action
 * or hook sees the parsed options, and it still owes the caller its result line.
 */
export function resultLineCommandIn(argv: readonly string[]): string | null {
  const end = argv.indexOf("--");
  const args = end === -1 ? argv : argv.slice(0, end);
  const command = args.find((a) => !a.startsWith("-"));
  if (command === undefined || !RESULT_LINE_COMMANDS.has(command)) return null;
  return args.includes("--json") ? command : null;
}
