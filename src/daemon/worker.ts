import type { DaemonConfig } from "../artifacts/schemas/ticket.js";
import { DevflowError, describeError, findCause, isDevflowError, messageOf } from "../errors/index.js";
import { BudgetGate, budgetAllowsClaim } from "./budget-gate.js";
import { clearCancelRequest } from "./cancel-request.js";
import { CancelWatch } from "./cancel-watch.js";
import type { ProbeTarget } from "./endpoint-probe.js";
import { ticketGuardTrips } from "./guard-trips.js";
import type { GateSnapshot } from "./provider-gate.js";
import { ProviderGuard } from "./provider-guard.js";
import { sweepReadOnlyLeftovers } from "./read-leftovers.js";
import { runEndWithoutRun } from "./run-end.js";
import { daySpend, localDay, readSpendLedger } from "./spend-ledger.js";
import type { SpendSnapshot } from "./status-hooks.js";
import type { Claim, TicketQueue } from "./ticket-queue.js";
import { readTicketRequest, type TicketRequest } from "./ticket-request.js";
import { type TicketResultFields, writeTicketResult } from "./ticket-result.js";
import { ticketCostFields } from "./ticket-spend.js";
import { transientBackoffMs, transientCause } from "./transient.js";
import { verificationResults } from "./verification-results.js";
import { claimWaitSeconds, IGNORE_WORKER_EVENTS, type WorkerEvents } from "./worker-events.js";
import type { RunEnd, TicketRunner } from "./worker-types.js";

export interface WorkerOptions {
  root: string;
  queue: TicketQueue;
  config: DaemonConfig;
  runner: TicketRunner;
  /** One line per thing the worker did (claims, ends, requeues, recoveries). */
  log: (line: string, level?: "info" | "warn" | "error") => void;
  random?: () => number;
  /** The live endpoint for the provider gate's readiness probe; null/absent: no probe (replay). */
  endpoint?: ProbeTarget | null;
  /** The clock (ms since the epoch) of the provider gate and the daily budget (local midnight reopens it); tests inject a fake one. */
  now?: () => number;
  /** Counted by the daemon's /metrics (ADR 0054). */
  events?: WorkerEvents;
}

interface Running {
  claim: Claim;
  controller: AbortController;
  done: Promise<void>;
  since: Date;
}

/**
 * The daemon's worker (issue 12, ADR 0051): recovers dead or stale claims at start and every
 * `recoverIntervalSeconds`, claims up to `maxConcurrent` tickets (never two of one repository),
 * heartbeats each claim's lease while it runs, and ends each ticket exactly one way: a terminal
 * record then done/ or failed/; a transient endpoint failure back to the inbox with a backoff; a
 * stopped run back to the inbox as it is, to resume from its checkpoint at the next claim.
 */
export class Worker {
  private readonly running = new Map<string, Running>();
  private stopping = false;
  private wake: (() => void) | null = null;
  private graceTimer: NodeJS.Timeout | null = null;

  private readonly guard: ProviderGuard;
  private readonly budget: BudgetGate;

  constructor(private readonly opts: WorkerOptions) {
    const { queue, log, now } = opts;
    this.guard = new ProviderGuard({
      queue,
      worker: () => this.opts.config.worker, // read at every use: a reload applies at once
      endpoint: opts.endpoint ?? null,
      log,
      onClosed: (state) => this.events.gateClosed(state),
      now,
    });
    // The cap is read from the current config at every check, so a reloaded config applies at once.
    const capUsd = () => this.opts.config.worker.dailyBudgetUsd;
    this.budget = new BudgetGate({ root: opts.root, capUsd, ...(now ? { now: () => new Date(now()) } : {}) });
  }

  /** The provider gate's state, read-only (for `/health`). */
  gateSnapshot(): GateSnapshot {
    return this.guard.gate.snapshot();
  }

  /** Today's spend (local day) from data/spend.json, for `/health` (ADR 0053/0054). */
  async spendToday(): Promise<SpendSnapshot> {
    const at = new Date(this.opts.now?.() ?? Date.now());
    const day = localDay(at);
    const tally = daySpend(await readSpendLedger(this.opts.root), day);
    return {
      day,
      usd: tally.known_usd,
      unknown_sessions: tally.unknown_sessions,
      budget_usd: this.opts.config.worker.dailyBudgetUsd ?? null,
    };
  }

  /** A config reload ends the gate's latches (ADR 0052). */
  resetGate(why: string): void {
    this.guard.reset(why);
  }

  /** Runs until `stop()` and every running ticket has ended. */
  async run(): Promise<void> {
    await this.recover();
    await this.sweepReadOnlyLeftovers();
    let lastRecover = Date.now();
    while (!this.stopping) {
      const { worker } = this.opts.config; // read each poll: a reload applies here
      // One failing step (a full disk, a stray file) is logged and tried again at the next poll:
      // the loop must not end while tickets it started still run, heartbeat and hold the lock.
      try {
        if (Date.now() - lastRecover >= worker.recoverIntervalSeconds * 1000) {
          await this.recover();
          lastRecover = Date.now();
        }
        await this.adoptDropped();
        while (
          !this.stopping &&
          this.running.size < worker.maxConcurrent &&
          (await budgetAllowsClaim(this.budget, this.opts.log)) &&
          this.guard.mayClaim()
        ) {
          const busy = new Set<string>();
          for (const { claim } of this.running.values())
            if (claim.record.repo_key) busy.add(claim.record.repo_key);
          const claim = await this.opts.queue.claim({
            busyRepoKeys: busy,
            beforeTake: () => this.guard.readyToTake(), // the probe, only when the listing found work
          });
          if (!claim) break;
          this.start(claim);
        }
      } catch (error) {
        this.opts.log(
          `poll failed, trying again in ${worker.pollIntervalSeconds} s: ${describeError(error)}`,
          "error",
        );
      }
      if (!this.stopping) await this.sleep(worker.pollIntervalSeconds * 1000);
    }
    await Promise.all([...this.running.values()].map((r) => r.done));
    if (this.graceTimer) clearTimeout(this.graceTimer);
  }

  /**
   * Stops claiming; running tickets may finish within `graceSeconds`, then they are stopped
   * resumably (their lanes get the abort) and go back to the inbox.
   */
  stop(reason: DevflowError<"INTERRUPTED">): void {
    if (this.stopping) return;
    this.stopping = true;
    this.wake?.();
    const grace = this.opts.config.worker.graceSeconds * 1000;
    if (this.running.size > 0)
      this.opts.log(`stopping: ${this.running.size} running ticket(s) get ${grace / 1000}s to finish`);
    this.graceTimer = setTimeout(() => {
      for (const { claim, controller } of this.running.values()) {
        this.opts.log(`grace over: stopping ${claim.id} resumably`);
        controller.abort(reason);
      }
    }, grace);
  }

  get runningIds(): string[] {
    return [...this.running.keys()];
  }

  /** For /health: each running ticket, since when, and its repository key. */
  runningTickets(): { id: string; since: string; repo: string | null }[] {
    return [...this.running.values()].map(({ claim, since }) => ({
      id: claim.id,
      since: since.toISOString(),
      repo: claim.record.repo_key,
    }));
  }

  get isStopping(): boolean {
    return this.stopping;
  }

  /** A reloaded config: read from the next poll, claim and heartbeat on (ADR 0054 lists the keys). */
  reconfigure(config: DaemonConfig): void {
    this.opts.config = config;
    // A valid reload ends the provider gate's latches (ADR 0052): the operator may have fixed the key.
    this.resetGate("config reload");
    this.wake?.();
  }

  private get events(): WorkerEvents {
    return this.opts.events ?? IGNORE_WORKER_EVENTS;
  }

  /** Hand-dropped inbox files become tickets; a failure is logged and retried at the next poll. */
  private async adoptDropped(): Promise<void> {
    try {
      for (const a of await this.opts.queue.adoptDropped()) {
        const lint = a.findings.map((f) => f.message).join("; ");
        this.opts.log(`adopted ${a.dropped} as ${a.id}${lint ? ` (failed plan-lint: ${lint})` : ""}`);
      }
    } catch (error) {
      this.opts.log(`could not adopt dropped tickets: ${describeError(error)}`, "warn");
    }
  }

  /** At start only: what read-only runs a crash interrupted left under cache/ (read-leftovers.ts). */
  private async sweepReadOnlyLeftovers(): Promise<void> {
    try {
      for (const path of await sweepReadOnlyLeftovers(this.opts.root))
        this.opts.log(`removed ${path}, left by a read-only ticket's run that did not finish`);
    } catch (error) {
      this.opts.log(`could not sweep read-only leftovers: ${describeError(error)}`, "warn");
    }
  }

  private async recover(): Promise<void> {
    for (const r of await this.opts.queue.recover())
      this.opts.log(`recovered ${r.id} (${r.why}): back in the inbox`);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  private start(claim: Claim): void {
    const controller = new AbortController();
    const since = new Date();
    const entry: Running = { claim, controller, done: Promise.resolve(), since };
    this.running.set(claim.id, entry);
    this.events.claimed(claimWaitSeconds(claim.record, since));
    this.opts.log(`claimed ${claim.id}`);
    entry.done = this.drive(claim, controller).finally(() => {
      this.running.delete(claim.id);
      this.wake?.();
    });
  }

  private async drive(claim: Claim, controller: AbortController): Promise<void> {
    const claimedAt = new Date();
    const { config } = this.opts;
    const beatMs = (config.worker.heartbeatSeconds ?? config.lease_stale_seconds / 3) * 1000;
    let lost: unknown = null;
    const cancel = new CancelWatch(this.opts.root, claim, controller);
    const beat = setInterval(() => {
      this.opts.queue
        .heartbeat(claim)
        .then(() => cancel.check())
        .catch((error) => {
          // Someone recovered this claim: stop the run, record nothing (the new holder will).
          lost = error;
          controller.abort(error);
        });
    }, beatMs);
    let ticket: TicketRequest | null = null;
    try {
      ticket = await readTicketRequest(claim.ticketPath);
      await cancel.check(); // a request left for an earlier claim (crash, recovery) cancels at once
      const end = cancel.noticed
        ? await cancel.end(ticket)
        : await this.opts.runner({ claim, signal: controller.signal }, ticket);
      clearInterval(beat);
      await this.opts.queue.heartbeat(claim); // still ours: only then is the result recorded
      this.guard.ended(end);
      await this.finalize(claim, ticket, end, claimedAt);
    } catch (error) {
      clearInterval(beat);
      if (lost || isDevflowError(error, "LEASE_LOST")) {
        this.opts.log(`lost ${claim.id}: ${messageOf(lost ?? error)}`, "warn");
        return;
      }
      const end = cancel.noticed
        ? cancel.end(ticket).then((cancelled) => this.finalize(claim, ticket, cancelled, claimedAt))
        : this.ended(claim, ticket, error, controller.signal, claimedAt);
      await end.catch((e) =>
        this.opts.log(`could not record the end of ${claim.id}: ${messageOf(e)}`, "error"),
      );
    } finally {
      clearInterval(beat);
    }
  }

  /** A run that threw: stopped (back to the inbox as is), transient (requeue with backoff), or failed. */
  private async ended(
    claim: Claim,
    ticket: TicketRequest | null,
    error: unknown,
    signal: AbortSignal,
    claimedAt: Date,
  ): Promise<void> {
    const { worker } = this.opts.config;
    if (signal.aborted || findCause(error, (e): e is DevflowError => isDevflowError(e, "INTERRUPTED"))) {
      await this.opts.queue.requeue(claim, {
        notBefore: null,
        retryCount: claim.record.retry_count,
        reason: "stopped by the daemon's shutdown; the next claim resumes it from its checkpoint",
      });
      this.events.requeued("stopped");
      this.opts.log(`stopped ${claim.id}: back in the inbox, resumable`);
      return;
    }
    const provider = await this.guard.tripped(claim, error);
    if (provider === true) return; // the provider's fault: retries untouched
    if (provider !== false) return this.finalize(claim, ticket, provider, claimedAt); // its bound hit
    const transient = transientCause(error);
    const retries = claim.record.retry_count + 1;
    if (transient && retries <= worker.maxTransientRetries) {
      const wait = transientBackoffMs(
        retries,
        worker.backoffBaseSeconds,
        worker.backoffMaxSeconds,
        this.opts.random,
      );
      const notBefore = new Date(Date.now() + wait);
      await this.opts.queue.requeue(claim, {
        notBefore,
        retryCount: retries,
        reason: `transient ${transient.code} (retry ${retries} of ${worker.maxTransientRetries}, not before ${notBefore.toISOString()}): ${transient.message}`,
      });
      this.events.requeued("transient");
      this.opts.log(
        `requeued ${claim.id}: ${transient.code}, retry ${retries} at ${notBefore.toISOString()}`,
      );
      return;
    }
    const code = error instanceof DevflowError ? error.code : "error";
    const reason = transient
      ? `transient ${transient.code} after ${worker.maxTransientRetries} retries: ${transient.message}`
      : `${code}: ${messageOf(error)}`;
    await this.finalize(
      claim,
      ticket,
      runEndWithoutRun({ status: "failed", verdict: "error", reason }),
      claimedAt,
      transient ? retries - 1 : claim.record.retry_count,
    );
  }

  /** The lane's guard trips of a finished change ticket (ADR 0054); unreadable: logged, none counted. */
  private async guardTrips(id: string, artifactDir: string | null) {
    try {
      return await ticketGuardTrips(this.opts.root, id, artifactDir);
    } catch (error) {
      this.opts.log(`could not read the guard trips of ${id}: ${describeError(error)}`, "warn");
      return null;
    }
  }

  /** The terminal record first, then the move: a crash in between resumes to the same verdict. */
  private async finalize(
    claim: Claim,
    ticket: TicketRequest | null,
    end: RunEnd,
    claimedAt: Date,
    retryCount = claim.record.retry_count,
  ): Promise<void> {
    const finishedAt = new Date();
    const kind = ticket?.kind ?? claim.record.kind ?? "change";
    const guards = kind === "change" ? await this.guardTrips(claim.id, end.artifactDir) : null;
    const fields: TicketResultFields = {
      id: claim.id,
      kind,
      status: end.status,
      verdict: end.verdict,
      reason: end.reason,
      task_id: end.taskId,
      branch: end.branch,
      commit: end.commit,
      attempts: end.attempts,
      artifact_dir: end.artifactDir,
      retry_count: retryCount,
      resumed: end.resumed,
      claimed_at: claimedAt.toISOString(),
      finished_at: finishedAt.toISOString(),
      duration_ms: Math.max(0, finishedAt.getTime() - claimedAt.getTime()),
      verification: end.verification ?? (await verificationResults(ticket?.verification ?? [], null)),
      ...(end.cancelled ? { cancelled: end.cancelled } : {}),
      ...(end.answer !== undefined ? { answer: end.answer } : {}),
      ...(await ticketCostFields(this.opts.root, claim.id, ticket?.frontmatter.budget_usd)),
      partial: end.partial ?? null,
      ...(guards ? { guard_trips: guards.trips } : {}),
    };
    await writeTicketResult(this.opts.root, fields);
    // Counted once the record holds them (before the move, so /metrics is never behind the folder).
    for (const trip of guards?.fresh ?? []) this.events.guardTripped(trip.guard);
    await this.opts.queue.finish(claim, {
      // A salvaged end keeps its folder by verdict: timeout_partial completed, aborted_partial did not.
      status:
        end.status === "completed" || end.status === "timeout_partial"
          ? "completed"
          : end.status === "cancelled"
            ? "cancelled"
            : "failed",
      reason: `${end.status === "aborted_partial" || end.status === "timeout_partial" ? `${end.status}, ` : ""}${end.verdict}: ${end.reason}`,
    });
    await clearCancelRequest(this.opts.root, claim.id);
    this.events.finished(end.status, end.verdict);
    this.opts.log(`finished ${claim.id}: ${end.verdict}${end.branch ? ` on ${end.branch}` : ""}`);
  }
}
