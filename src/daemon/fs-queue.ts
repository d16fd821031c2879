import type { DaemonConfig, TicketRecord } from "../artifacts/schemas/ticket.js";
import { ensureDataRoot } from "../home/daemon-paths.js";
import type { Adopted } from "./fs-adopt.js";
import {
  cancelTicket,
  claimTicket,
  finishClaim,
  heartbeat,
  type InboxRecordCache,
  requeueClaim,
} from "./fs-claim.js";
import { entryOf, locate, locateAll } from "./fs-locate.js";
import { recoverClaims } from "./fs-recover.js";
import type {
  Claim,
  ClaimOptions,
  FinishOutcome,
  QueueEntry,
  Recovered,
  Requeue,
  SubmitResult,
  TicketQueue,
} from "./ticket-queue.js";

/**
 * The file-system TicketQueue: four folders under the data root, every state change one atomic
 * link(2) or rename(2) whose single winner then writes the ticket's record (ADR 0051). Reading
 * methods (list, get) never create anything; the others create the data root first.
 */
export class FsTicketQueue implements TicketQueue {
  private readonly inboxRecords: InboxRecordCache = new Map();

  constructor(
    readonly root: string,
    /** Replaced by a config reload of the daemon (ADR 0054). */
    public config: DaemonConfig,
  ) {}

  private ensured = false;

  /** The root, created (once per instance) with its tree and .gitignore. */
  private get writable(): string {
    if (!this.ensured) ensureDataRoot(this.root);
    this.ensured = true;
    return this.root;
  }

  /** Creates the data root (tree, .gitignore) if needed and returns it: the daemon's start. */
  ensureRoot(): string {
    return this.writable;
  }

  // Plan-lint (git, YAML) loads only for the commands that lint: `list` and `status` stay light.
  async submit(source: string, bytes: Uint8Array): Promise<SubmitResult> {
    const { submitTicket } = await import("./fs-submit.js");
    return submitTicket(this.writable, this.config, source, bytes);
  }

  /** Tickets dropped into inbox/ by hand, submitted like `devflow submit` (fs-adopt.ts). */
  async adoptDropped(now?: Date): Promise<Adopted[]> {
    const { adoptDroppedTickets } = await import("./fs-adopt.js");
    return adoptDroppedTickets(this.writable, this.config, now);
  }

  claim(options?: ClaimOptions): Promise<Claim | null> {
    return claimTicket(this.writable, options, this.inboxRecords);
  }

  heartbeat(claim: Claim, now?: Date): Promise<void> {
    return heartbeat(this.root, claim, now);
  }

  finish(claim: Claim, outcome: FinishOutcome): Promise<TicketRecord> {
    return finishClaim(this.root, claim, outcome);
  }

  requeue(claim: Claim, requeue: Requeue): Promise<TicketRecord> {
    return requeueClaim(this.root, claim, requeue);
  }

  cancel(id: string): Promise<TicketRecord> {
    return cancelTicket(this.writable, id);
  }

  async retry(id: string): Promise<TicketRecord> {
    const { retryTicket } = await import("./fs-submit.js");
    return retryTicket(this.writable, this.config, id);
  }

  async list(): Promise<QueueEntry[]> {
    return Promise.all((await locateAll(this.root)).map((located) => entryOf(this.root, located)));
  }

  async get(id: string): Promise<QueueEntry | null> {
    const located = await locate(this.root, id);
    return located ? entryOf(this.root, located) : null;
  }

  recover(now = new Date()): Promise<Recovered[]> {
    return recoverClaims(this.writable, now, this.config.lease_stale_seconds * 1000);
  }
}
