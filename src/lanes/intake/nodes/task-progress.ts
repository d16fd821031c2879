import type { DevflowEvent } from "../../../artifacts/schemas/index.js";
import type { CoderConfirmation } from "../../iterate/lane/deps.js";
import type { NodeReport, ProgressSink } from "../../iterate/lane/reporter.js";
import type { IntakeDeps, TaskDisplay } from "../deps.js";
import type { IntakeEvent } from "../events.js";
import type { InFlightNodes } from "./in-flight.js";

/**
 * Where an iterate task started from the chat reports its progress: always as `progress` events
 * (the chat's --json stream), and, when the CLI gave a display, to the same human progress as
 * `devflow iterate` (live line on a terminal, plain lines, coder start line and heartbeat
 * otherwise, ADR 0044), whose `live` side channel carries the coder's transcript and activity.
 */
export function taskProgress(
  deps: IntakeDeps,
  inFlight: InFlightNodes,
): {
  onProgress: ProgressSink;
  confirmCoder?: (c: CoderConfirmation) => Promise<boolean>;
  close(): void;
} {
  const display: TaskDisplay | null = deps.iterate.display?.() ?? null;
  const onProgress: ProgressSink = (event, report) => {
    if (event.phase === "start") inFlight.started(event.node);
    else if (event.phase === "end" || event.phase === "error") inFlight.ended(event.node);
    display?.sink(event, report);
    deps.emit(progressEvent(event, report));
  };
  if (display?.sink.live) onProgress.live = display.sink.live;
  const confirm = deps.iterate.confirmCoder;
  return {
    onProgress,
    // The live line comes down before the chat asks on the terminal.
    ...(confirm
      ? {
          confirmCoder: (c: CoderConfirmation) => {
            display?.pause();
            return confirm(c);
          },
        }
      : {}),
    close: () => display?.close(),
  };
}

/** A lane node event as the chat's `progress` event (also the progress of a plan run from the chat). */
export function progressEvent(event: DevflowEvent, report: NodeReport): IntakeEvent {
  return {
    type: "progress",
    task_id: event.task_id,
    node: event.node,
    phase: event.phase,
    ok: report.ok,
    outcome: event.outcome,
    run_state: event.run_state,
    attempt_id: event.attempt_id,
    duration_ms: event.duration_ms,
  };
}
