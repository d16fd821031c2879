import { DevflowError, isDevflowError } from "../errors/index.js";

/**
 * The two signals that stop a run (ADR 0043): Ctrl-C (SIGINT, from the terminal to the whole
 * foreground process group) and SIGTERM (`kill`, a supervisor, a container stop).
 */
export type StopSignal = "SIGINT" | "SIGTERM";
export const STOP_SIGNALS: readonly StopSignal[] = ["SIGINT", "SIGTERM"];

/**
 * The abort reason a stop signal puts on a run's AbortSignal: what everything downstream reads to
 * tell a user's stop from any other abort (and which signal it was).
 */
export function stopReason(signal: StopSignal, taskId: string | null = null): DevflowError<"INTERRUPTED"> {
  return new DevflowError("INTERRUPTED", `stopped by ${signal}`, { details: { signal, taskId } });
}

/** The stop signal an aborted run was stopped by; null when it was not aborted by one. */
export function stopSignalOf(abort: AbortSignal | undefined): StopSignal | null {
  if (!abort?.aborted) return null;
  return isDevflowError(abort.reason, "INTERRUPTED") ? abort.reason.details.signal : null;
}
