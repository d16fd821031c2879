import { DevflowError, isDevflowError } from "../../../errors/index.js";
import { stopSignalOf } from "../../../process/stop-signal.js";
import type { Reporter } from "./reporter.js";

/**
 * A stop (Ctrl-C, SIGTERM, the chat's Ctrl-C during a turn) as the lane sees it (ADR 0043): the
 * `interrupted` event goes to events.jsonl the moment the run's signal aborts (a second Ctrl-C may
 * end the process before the running node has stopped), and what the run threw because of the stop
 * ("coder run aborted", "… was stopped before it finished") becomes one INTERRUPTED error naming
 * the task. The checkpoint is untouched: defineNode never checkpoints a node the stop cut short.
 */
export class Interruption {
  private recorded: Promise<void> | null = null;
  private readonly onAbort = () => this.record();

  constructor(
    private readonly signal: AbortSignal | undefined,
    private readonly reporter: Reporter,
    private readonly taskId: string,
  ) {
    if (signal?.aborted) this.record();
    else signal?.addEventListener("abort", this.onAbort, { once: true });
  }

  /** What to throw for `error`: the INTERRUPTED error once the run was stopped, else `error` itself. */
  async errorFor(error: unknown): Promise<unknown> {
    if (!this.signal?.aborted) return error;
    await this.recorded;
    if (isDevflowError(error, "INTERRUPTED") && error.details.taskId === this.taskId) return error;
    const signal = stopSignalOf(this.signal) ?? "SIGINT";
    return new DevflowError("INTERRUPTED", `task ${this.taskId} was stopped by ${signal}`, {
      details: { signal, taskId: this.taskId },
      hint: "the run is checkpointed: --resume continues it",
      cause: error,
    });
  }

  dispose(): void {
    this.signal?.removeEventListener("abort", this.onAbort);
  }

  private record(): void {
    const signal = stopSignalOf(this.signal);
    this.recorded ??= this.reporter
      .info(
        "interrupted",
        `stopped by ${signal ?? "an abort"}; the running step is ended and not checkpointed: --resume continues from the last finished one`,
        { signal },
        { ok: false },
      )
      .catch(() => {}); // the store may be unwritable; the stop itself must still go through
  }
}
