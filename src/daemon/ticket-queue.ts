import type { LintFinding, TicketLease, TicketRecord, TicketState } from "../artifacts/schemas/ticket.js";

/**
 * The queue the daemon works through, behind an interface so that a shared-database backend can
 * replace the file-system one (fs-queue.ts) without touching the daemon's logic (issue 12). Every
 * method is safe against other processes using the same queue at the same time: each state change
 * has exactly one winner.
 */
export interface TicketQueue {
  /** Lints and enqueues a ticket: inbox/ when it passes, failed/ (status lint_failed) when not. */
  submit(source: string, bytes: Uint8Array): Promise<SubmitResult>;
  /**
   * Tickets dropped into the inbox without `submit` (a backend without such a place returns []):
   * linted and enqueued like a submission, each under a fresh id.
   */
  adoptDropped(now?: Date): Promise<(SubmitResult & { dropped: string })[]>;
  /** Takes the next eligible ticket (priority, then age; not_before passed; repository not busy), or null. */
  claim(options?: ClaimOptions): Promise<Claim | null>;
  /** Renews the claim's lease; throws LEASE_LOST when the claim was recovered by someone else. */
  heartbeat(claim: Claim, now?: Date): Promise<void>;
  /** Ends a claim: the ticket goes to done/ or failed/ and its record says why. */
  finish(claim: Claim, outcome: FinishOutcome): Promise<TicketRecord>;
  /**
   * Gives a claim back: the ticket returns to the inbox (waiting until `notBefore`, when set) with
   * `retryCount` in its record. A stopped run (resumable) and a transient failure both use it.
   */
  requeue(claim: Claim, requeue: Requeue): Promise<TicketRecord>;
  /** inbox → failed/ with status cancelled. A running or finished ticket is refused (TICKET_STATE). */
  cancel(id: string): Promise<TicketRecord>;
  /** failed → inbox after linting the ticket again; a ticket that still fails lint stays (TICKET_REJECTED). */
  retry(id: string): Promise<TicketRecord>;
  /** Every ticket in the queue, with its record and (for claimed ones) its lease. */
  list(): Promise<QueueEntry[]>;
  /** One ticket, or null. */
  get(id: string): Promise<QueueEntry | null>;
  /** Returns to the inbox every claim whose lease owner is dead or whose heartbeat is stale. */
  recover(now?: Date): Promise<Recovered[]>;
}

export interface SubmitResult {
  id: string;
  record: TicketRecord;
  /** Non-empty when the ticket went to failed/. */
  findings: LintFinding[];
}

export interface ClaimOptions {
  now?: Date;
  /** Repository keys the caller is already running (in addition to the queue's own claims). */
  busyRepoKeys?: ReadonlySet<string>;
  /**
   * Asked once, only when the claim's own listing found an eligible ticket, before it is taken;
   * false: nothing is claimed. The provider guard's readiness probe (ADR 0052) goes here, so a poll
   * lists the inbox once instead of once for "is there work?" and again for the claim.
   */
  beforeTake?: () => Promise<boolean>;
}

export interface Claim {
  id: string;
  /** Names this claim (its processing/ file and lease); a later claim of the same ticket has another. */
  token: string;
  /** The ticket's bytes as submitted, where the claim holds it. */
  ticketPath: string;
  record: TicketRecord;
  lease: TicketLease;
}

export interface FinishOutcome {
  status: "completed" | "failed" | "cancelled";
  reason: string | null;
}

export interface Requeue {
  notBefore: Date | null;
  retryCount: number;
  /** The record's provider_requeues after this requeue; absent: left as it is. */
  providerRequeues?: number;
  reason: string;
  now?: Date;
}

export interface QueueEntry {
  id: string;
  state: TicketState;
  /** Null when the record is missing or unreadable (a file dropped into the queue by hand). */
  record: TicketRecord | null;
  lease: TicketLease | null;
}

export interface Recovered {
  id: string;
  token: string;
  why: "owner_dead" | "heartbeat_stale" | "no_lease";
}
