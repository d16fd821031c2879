import { isDevflowError } from "../errors/index.js";
import type { ProgressSink } from "../lanes/iterate/lane/reporter.js";
import { killLiveGroups } from "../process/process-group.js";
import { STOP_SIGNALS, type StopSignal, stopReason } from "../process/stop-signal.js";
import { EXIT } from "./exit-codes.js";
import type { CliIO } from "./io.js";

/** 128 + the signal's number, as a shell reports a process its signal ended: documented exit codes. */
export const SIGNAL_EXIT: Readonly<Record<StopSignal, number>> = {
  SIGINT: EXIT.interrupted,
  SIGTERM: EXIT.terminated,
};

/** What a stopped run's `--json` result names so a script can continue it. */
export interface StoppedRun {
  /** The stopped task, once known (null: stopped before a task existed). */
  taskId: string | null;
  /** The command line that continues it, or null (the demo is run again, not resumed). */
  resumeCommand: string | null;
}

export interface StopOptions {
  /**
   * The command stops cleanly when its run's AbortSignal aborts (it ends its children, records the
   * stop, leaves the checkpoint resumable). Otherwise the first signal already forces the exit.
   */
  abortable: boolean;
  /** The command line that continues the stopped run, given its task id (null: not known yet). */
  resumeCommand?: (taskId: string | null) => string | null;
  /**
   * Told once a stopped run has returned, with its exit code and the INTERRUPTED error that names the
   * task: `--json` writes its one result line here (ADR 0046), since the stop is not an error `runCli`
   * sees. A forced stop (second signal) exits at once and calls nothing.
   */
  onStopped?: (code: number, error: unknown, stopped: StoppedRun) => void;
  /** How the process leaves on a forced stop; tests inject it. */
  exit?: (code: number) => void;
  /** Where the signals come from; tests pass an EventEmitter. */
  source?: Pick<NodeJS.Process, "on" | "off">;
}

/**
 * The one owner of SIGINT and SIGTERM while a command runs (ADR 0043). The first signal aborts the
 * run's AbortSignal with a `stopReason` (the lane ends the coder's process tree and its test runs,
 * records `interrupted` in events.jsonl, starts no further node and never commits); when the command
 * returns, `run` prints the resume command and answers 130 (SIGINT) or 143 (SIGTERM), whatever the
 * run threw because of the stop ("aborted" noise included). A second signal forces the exit at once
 * with the same code, after SIGKILLing every process group devflow still waits on.
 */
export class StopSignals {
  private readonly controller = new AbortController();
  private first: StopSignal | null = null;
  private taskId: string | null = null;
  private readonly handlers = new Map<StopSignal, () => void>();
  private readonly source: Pick<NodeJS.Process, "on" | "off">;

  constructor(
    private readonly io: Pick<CliIO, "err">,
    private readonly opts: StopOptions,
  ) {
    this.source = opts.source ?? process;
    for (const name of STOP_SIGNALS) {
      const handler = () => this.received(name);
      this.handlers.set(name, handler);
      this.source.on(name, handler);
    }
  }

  /** Aborted by the first stop signal; its reason is `stopReason(signal)`. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The first stop signal received, or null. */
  get stoppedBy(): StopSignal | null {
    return this.first;
  }

  /** The task the run works on, once known (for the resume line of a forced exit). */
  noteTask(taskId: string): void {
    this.taskId = taskId;
  }

  /**
   * A progress sink that also tells this owner the task id from the run's events. The sink's own
   * properties (a live display's `live` side channel, ADR 0044) are carried over: wrapping must not
   * cut the display off from the coder's start and activity.
   */
  watching(sink: ProgressSink): ProgressSink {
    const watched: ProgressSink = (event, report) => {
      this.taskId = event.task_id;
      sink(event, report);
    };
    if (sink.live) watched.live = sink.live;
    return watched;
  }

  /**
   * Runs the command's body: its exit code, or after a stop signal 130/143 with the resume command
   * on stderr (what the body threw because of the stop is not reported).
   */
  async run(body: (signal: AbortSignal) => Promise<number>): Promise<number> {
    try {
      const code = await body(this.signal);
      return this.first ? this.stopped(null) : code;
    } catch (error) {
      if (!this.first) throw error;
      return this.stopped(error);
    } finally {
      this.dispose();
    }
  }

  dispose(): void {
    for (const [name, handler] of this.handlers) this.source.off(name, handler);
    this.handlers.clear();
  }

  private received(name: StopSignal): void {
    if (this.first === null && this.opts.abortable) {
      this.first = name;
      this.io.err(
        `\ndevflow: stopping (${name}): ending the coder and test runs; the run stays resumable (${name === "SIGINT" ? "Ctrl-C" : "SIGTERM"} again to force)\n`,
      );
      this.controller.abort(stopReason(name, this.taskId));
      return;
    }
    this.first ??= name;
    this.force();
  }

  private force(): void {
    const code = SIGNAL_EXIT[this.first ?? "SIGINT"];
    const killed = killLiveGroups();
    const resume = this.opts.resumeCommand?.(this.taskId) ?? null;
    this.io.err(
      `\ndevflow: stopped at once by ${this.first}${killed ? ` (${killed} process group(s) killed)` : ""}${resume ? `; the run resumes from its last checkpoint:\n  → ${resume}` : ""}\n`,
    );
    (this.opts.exit ?? ((c: number) => process.exit(c)))(code);
  }

  private stopped(error: unknown): number {
    const signal = this.first as StopSignal;
    if (isDevflowError(error, "INTERRUPTED") && error.details.taskId) this.taskId = error.details.taskId;
    const resume = this.opts.resumeCommand?.(this.taskId) ?? null;
    this.io.err(
      `devflow: stopped by ${signal}${resume ? `; the run is checkpointed, to continue:\n  → ${resume}` : ""}\n`,
    );
    const reason = isDevflowError(error, "INTERRUPTED") ? error : this.controller.signal.reason;
    this.opts.onStopped?.(SIGNAL_EXIT[signal], reason, { taskId: this.taskId, resumeCommand: resume });
    return SIGNAL_EXIT[signal];
  }
}
