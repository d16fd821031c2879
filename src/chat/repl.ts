import { describeError } from "../errors/index.js";
import type { IterateSettings } from "../lanes/intake/deps.js";
import { progressEvent } from "../lanes/intake/nodes/task-progress.js";
import { IntakeSession } from "../lanes/intake/session.js";
import type { CoderConfirmation, LaneOptions } from "../lanes/iterate/lane/deps.js";
import type { ProgressSink } from "../lanes/iterate/lane/reporter.js";
import type { ModelGateway } from "../models/contract.js";
import { killLiveGroups } from "../process/process-group.js";
import { stopReason } from "../process/stop-signal.js";
import { planResumeCommandLine } from "../util/command-line.js";
import { coderWarning } from "./coder-warning.js";
import { runSlash } from "./commands.js";
import { LineReader } from "./line-reader.js";
import { type ChatEvent, chatRenderer, type Write } from "./output.js";

export interface ChatOptions {
  repo: string;
  /** Continue this thread; absent: start a new one. */
  threadId?: string;
  /** Start coders without asking. */
  yes: boolean;
  json: boolean;
  gateway: ModelGateway;
  coder: string;
  model: string;
  lane: Partial<LaneOptions>;
  /** The request size cap in bytes (limits.max_request_bytes from the config layers). */
  maxRequestBytes?: number;
  input: NodeJS.ReadableStream;
  /** Where a terminal's prompt and echo go. */
  output: NodeJS.WritableStream;
  /** A terminal (prompt, raw-mode Ctrl-C) rather than piped lines. */
  terminal: boolean;
  /**
   * Whether stdin is a terminal, so the coder confirmation may read a line. Piped input never is:
   * its next line is the next message, which a confirmation must not eat (issue 11).
   */
  canAsk: boolean;
  out: Write;
  err: Write;
  /** Each iterate task's progress display (the CLI's human progress); absent: one line per node. */
  display?: TaskDisplayFactory;
  /** Keep a finished task's coder checkout (--keep-worktree). */
  keepWorktree?: boolean;
  /**
   * Runs a plan the idea lane wrote in this turn (issue 13): approve / edit / reject, then the plan
   * run. Absent: the idea route ends at the brief.
   */
  plans?: ChatPlans;
  /**
   * Called once when the chat ends on its own terms, with its exit code, also just before a
   * second Ctrl-C forces the exit (so `--json` can end with its one result line, ADR 0049).
   */
  onEnd?: (end: ChatEnd) => void;
}

/** What the chat gives the plan step: where to ask, the turn's signal, a progress sink for --json. */
export interface ChatPlanStep {
  planId: string;
  prompter: {
    /** Prints the question and reads the answer from the chat's input ("" once the input ended). */
    ask(question: string): Promise<string>;
    /** Runs the editor while the chat does not read stdin. */
    handOver<T>(run: () => Promise<T>): Promise<T>;
  };
  signal: AbortSignal;
  /** The plan's node events as the chat's `progress` events (--json). */
  progress: ProgressSink;
  emit: (event: ChatEvent) => void;
}

/** Runs the plan step; false when it failed (the turn counts as failed). */
export type ChatPlans = (step: ChatPlanStep) => Promise<boolean>;

export type TaskDisplayFactory = NonNullable<IterateSettings["display"]>;

/** How a chat ended: its exit code, its thread and how many turns failed. */
export interface ChatEnd {
  code: number;
  threadId: string | null;
  failedTurns: number;
}

/**
 * Exit codes of the chat: 0 after /quit or end of input, 1 when a turn failed, 130 after Ctrl-C at
 * the prompt, 143 after SIGTERM.
 */
export const CHAT_EXIT = { ok: 0, turnFailed: 1, interrupted: 130, terminated: 143 } as const;

const YES = /^\s*y(es)?\s*$/i;

/** The one line a piped chat prints instead of asking to run a plan (as for a coder, issue 11). */
const PLAN_NOT_ASKED = (planId: string, repo: string) =>
  `not running plan ${planId}: stdin is not a terminal, so devflow does not ask; pass --yes to run plans from piped input, or run it later with ${planResumeCommandLine(planId, repo)}`;

/** The one line a piped chat prints instead of asking to start a coder. */
const NOT_ASKED = (taskId: string) =>
  `not starting the coder for ${taskId}: stdin is not a terminal, so devflow does not ask; pass --yes to start coders from piped input; the task ends blocked`;

/**
 * The `devflow chat` loop: one message per line (typed or piped); slash commands are handled
 * here, everything else goes to the intake graph. Ctrl-C during a turn aborts it (the coder is
 * stopped, the task stays resumable); Ctrl-C at the prompt leaves.
 */
export async function runChat(opts: ChatOptions): Promise<number> {
  const emit = chatRenderer({
    json: opts.json,
    out: opts.out,
    err: opts.err,
    progressShown: opts.display !== undefined,
  });
  const reader = new LineReader(opts.input, opts.output, opts.terminal);
  // The idea briefs written in the running turn (the router's idea route, or an iterate handoff).
  const planned: string[] = [];
  const sessionEmit = (event: ChatEvent) => {
    if (event.type === "lane_result" && event.lane === "idea" && event.outcome === "planned")
      planned.push(event.id);
    emit(event);
  };
  let current: AbortController | null = null;
  let interrupted = false;
  let failedTurns = 0;
  let threadId: string | null = opts.threadId ?? null;
  const end = (code: number): number => {
    opts.onEnd?.({ code, threadId, failedTurns });
    return code;
  };

  const confirmCoder = async (c: CoderConfirmation): Promise<boolean> => {
    if (!opts.canAsk) {
      emit({ type: "error", lane: "iterate", message: NOT_ASKED(c.taskId) });
      return false;
    }
    emit({ type: "confirm", task_id: c.taskId, coder: c.coder, title: c.title, seam_command: c.seamCommand });
    const answer = await reader.next(current?.signal);
    const yes = answer !== null && YES.test(answer);
    emit({ type: "notice", text: yes ? "Starting the coder." : "Not starting the coder." });
    return yes;
  };

  let session: IntakeSession;
  try {
    session = await IntakeSession.open({
      repo: opts.repo,
      ...(opts.threadId ? { threadId: opts.threadId } : {}),
      gateway: opts.gateway,
      iterate: {
        coder: opts.coder,
        model: opts.model,
        lane: opts.lane,
        ...(opts.maxRequestBytes === undefined ? {} : { maxRequestBytes: opts.maxRequestBytes }),
        ...(opts.yes ? {} : { confirmCoder }),
        ...(opts.display ? { display: opts.display } : {}),
        ...(opts.keepWorktree ? { keepWorktree: true } : {}),
      },
      emit: sessionEmit,
    });
  } catch (error) {
    reader.close();
    throw error;
  }

  // SIGTERM (a supervisor, `kill`): stop the running turn like Ctrl-C and leave, so the session is
  // closed and the thread's lock released by this process rather than left for takeover.
  let terminated = false;
  const onTerminate = () => {
    terminated = true;
    current?.abort(stopReason("SIGTERM"));
    reader.close();
  };
  process.on("SIGTERM", onTerminate);

  reader.onInterrupt(() => {
    if (current) {
      if (!current.signal.aborted) {
        emit({
          type: "notice",
          text: "\nStopping (the coder is being stopped; the task stays resumable; Ctrl-C again to force)…",
        });
        current.abort(stopReason("SIGINT"));
        return;
      }
      // A second Ctrl-C while the turn still winds down forces the exit (ADR 0043): the thread's lock
      // is released and every group devflow waits on is SIGKILLed; the task resumes from its checkpoint.
      session.close();
      killLiveGroups();
      process.exit(end(CHAT_EXIT.interrupted));
    }
    interrupted = true;
    reader.close();
  });

  const turn = async (run: (signal: AbortSignal) => Promise<boolean>): Promise<void> => {
    current = new AbortController();
    try {
      if (!(await run(current.signal))) failedTurns += 1;
    } catch (error) {
      // A turn that threw (`/resume` of a missing task) failed too: the exit code and --json say so.
      failedTurns += 1;
      emit({ type: "error", lane: null, message: describeError(error) });
    } finally {
      current = null;
    }
  };

  // A plan asks on the chat's own input, like the coder confirmation: piped input is never asked
  // (its next line is the next message), unless --yes approves.
  const planStep = async (planId: string, plans: ChatPlans): Promise<void> => {
    if (!opts.yes && !opts.canAsk) {
      emit({ type: "error", lane: "idea", message: PLAN_NOT_ASKED(planId, session.repoRoot) });
      return;
    }
    await turn((signal) =>
      plans({
        planId,
        signal,
        emit,
        progress: (event, report) => emit(progressEvent(event, report)),
        prompter: {
          ask: async (question) => {
            emit({ type: "ask", text: question });
            return ((await reader.next(signal)) ?? "").trim();
          },
          handOver: async (run) => {
            reader.suspend();
            try {
              return await run();
            } finally {
              reader.resume();
            }
          },
        },
      }),
    );
  };

  try {
    threadId = session.thread.id;
    const earlier = (await session.turns()).filter((t) => t.role === "user").length;
    emit({
      type: "thread",
      id: session.thread.id,
      repo: session.repoRoot,
      turns: earlier,
      resumed: opts.threadId !== undefined,
    });
    const warning = await coderWarning(opts.coder, opts.gateway);
    if (warning) emit({ type: "warning", message: warning });
    const pending = await session.pendingQuestions();
    if (pending) {
      emit({
        type: "notice",
        text: `Task ${pending.task_id} is waiting for your answer:\n${pending.questions.map((q) => `  - ${q}`).join("\n")}`,
      });
    }
    for (;;) {
      reader.prompt("you> ");
      const line = await reader.next();
      if (line === null) break;
      const text = line.trim();
      if (!text) continue;
      if (!text.startsWith("/")) {
        planned.length = 0;
        await turn((signal) => session.send(text, signal));
        const planId = planned.pop();
        if (planId !== undefined && opts.plans) await planStep(planId, opts.plans);
        continue;
      }
      const outcome = await runSlash(text, session).catch((error: unknown) => {
        emit({ type: "error", lane: null, message: describeError(error) });
        return null;
      });
      if (outcome?.kind === "quit") break;
      if (outcome?.kind === "resume") await turn((signal) => session.resumeTask(outcome.taskId, signal));
      if (outcome?.kind === "output")
        emit({
          type: "command",
          command: outcome.command,
          text: outcome.text,
          ...(outcome.data === undefined ? {} : { data: outcome.data }),
        });
    }
  } finally {
    process.off("SIGTERM", onTerminate);
    session.close();
    reader.close();
  }
  if (terminated) return end(CHAT_EXIT.terminated);
  if (interrupted) return end(CHAT_EXIT.interrupted);
  return end(failedTurns > 0 ? CHAT_EXIT.turnFailed : CHAT_EXIT.ok);
}
