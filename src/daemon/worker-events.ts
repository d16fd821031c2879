import type { GuardName, TicketResultStatus } from "../artifacts/schemas/ticket.js";
/**
 * What the worker tells the daemon's metrics (ADR 0054): the worker calls these at the points it
 * already knows about; the daemon's /metrics counts them. The default does nothing (tests, tools).
 */
export interface WorkerEvents {
  /** A ticket was claimed `waitSeconds` after it became eligible (submitted, or its not_before). */
  claimed(waitSeconds: number): void;
  /** A terminal record was written. */
  finished(status: TicketResultStatus, verdict: string): void;
  /** A claim went back to the inbox: a transient failure (retry counted) or a stop (resumable). */
  requeued(reason: "transient" | "stopped"): void;
  /** The provider gate closed (ADR 0052), with the closed state's name. */
  gateClosed(state: string): void;
  /** A guard of the lane refused something a coder did, read from a finished ticket's task artifacts. */
  guardTripped(guard: GuardName): void;
}

export const IGNORE_WORKER_EVENTS: WorkerEvents = {
  claimed: () => {},
  finished: () => {},
  requeued: () => {},
  gateClosed: () => {},
  guardTripped: () => {},
};

/** Seconds between a ticket becoming eligible (submitted, or its not_before) and `now`. */
export function claimWaitSeconds(
  record: { submitted_at: string; not_before: string | null },
  now: Date,
): number {
  const eligible = Math.max(Date.parse(record.submitted_at), Date.parse(record.not_before ?? "") || 0);
  return Math.max(0, (now.getTime() - eligible) / 1000);
}
