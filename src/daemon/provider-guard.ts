import type { WorkerConfig } from "../artifacts/schemas/ticket.js";
import { type ProbeTarget, probeEndpoint } from "./endpoint-probe.js";
import { classifyCoderEnd, classifyProviderError, type ProviderFault } from "./provider-fault.js";
import { type GateSnapshot, ProviderGate } from "./provider-gate.js";
import { coderProviderStop, providerRequeue } from "./provider-requeues.js";
import { runEndWithoutRun } from "./run-end.js";
import type { Claim, TicketQueue } from "./ticket-queue.js";
import type { RunEnd } from "./worker-types.js";

export interface ProviderGuardOptions {
  queue: TicketQueue;
  /**
   * The current `worker` config, read at every use (like BudgetGate's cap): a reloaded
   * probeEnabled, probeTimeoutSeconds, rateLimit*Seconds or backoffBaseSeconds applies without a restart.
   */
  worker: () => WorkerConfig;
  /** The live endpoint to probe; null for scripted or offline runs (replay), where nothing is probed. */
  endpoint: ProbeTarget | null;
  log: (line: string) => void;
  /** Told each time the gate closes (the daemon's devflow_gate_trips_total). */
  onClosed?: (state: string) => void;
  now?: () => number;
  /** Replaced in tests only. */
  probe?: typeof probeEndpoint;
}

/**
 * The provider gate as the worker uses it (ADR 0052): whether it may claim now (gate open, and the
 * endpoint answers the readiness probe when there is eligible work), what a failed run does to the
 * gate, and the requeue of the ticket that tripped it (a fresh not_before, the retry counter as it
 * was: a provider fault is never the ticket's fault). Logs each change of the gate's state once.
 */
export class ProviderGuard {
  readonly gate: ProviderGate;
  private readonly now: () => number;
  private shown: GateSnapshot["state"] = "open";
  /** The last thing said about the probe being off or skipped (said again only when it changes). */
  private probeNote: string | null = null;

  constructor(private readonly opts: ProviderGuardOptions) {
    this.now = opts.now ?? Date.now;
    this.gate = new ProviderGate(() => {
      const w = opts.worker();
      return {
        rateLimitBaseMs: w.rateLimitBaseSeconds * 1000,
        rateLimitMaxMs: w.rateLimitMaxSeconds * 1000,
        outageMs: w.backoffBaseSeconds * 1000,
      };
    }, this.now);
    this.noteProbe();
  }

  /** True when the gate is open. Reads nothing: the probe waits for the claim's own listing. */
  mayClaim(): boolean {
    this.noteProbe();
    return this.show(this.gate.isOpen());
  }

  /**
   * The readiness probe, asked by the claim once its listing found eligible work (ClaimOptions
   * .beforeTake): true when the endpoint answers, or when there is no probe to run.
   */
  async readyToTake(): Promise<boolean> {
    const { endpoint } = this.opts;
    const worker = this.opts.worker();
    if (!endpoint || !worker.probeEnabled) return true;
    const fault = await (this.opts.probe ?? probeEndpoint)(endpoint, worker.probeTimeoutSeconds * 1000);
    if (!fault) return true;
    this.gate.trip(fault);
    return this.show(false);
  }

  /**
   * A run that threw: a latch or a rate limit closes the gate and the ticket goes back to the inbox
   * untouched (true: handled). An outage closes the gate for one interval but is left to the
   * transient path (false), whose bounded retries stop a ticket that breaks the server every time.
   * A coder's provider stop past `worker.maxProviderRequeues`: the RunEnd to finalize it with.
   */
  async tripped(claim: Claim, error: unknown): Promise<boolean | RunEnd> {
    const fault = classifyProviderError(error);
    if (fault === null) return false;
    this.gate.trip(fault);
    this.show(this.gate.isOpen());
    if (fault.kind === "outage_backoff") return false;
    // A coder's provider stop is counted and bounded (the coder is untrusted); an endpoint fault
    // devflow classified from the HTTP status itself is not.
    const stop = coderProviderStop(error);
    const bound = stop ? providerRequeue(claim, this.opts.worker().maxProviderRequeues, fault.reason) : null;
    if (bound && !bound.requeue) {
      this.opts.log(`not requeueing ${claim.id}: ${bound.reason}`);
      return runEndWithoutRun({
        status: "failed",
        verdict: "blocked",
        reason: bound.reason,
        taskId: claim.id,
      });
    }
    const notBefore = new Date(this.gate.opensAt() ?? this.now());
    await this.opts.queue.requeue(claim, {
      notBefore,
      retryCount: claim.record.retry_count,
      ...(bound?.requeue ? { providerRequeues: bound.count } : {}),
      reason: `provider gate ${fault.kind} (retry counter untouched${bound?.requeue ? `, provider requeue ${bound.count} of ${this.opts.worker().maxProviderRequeues}` : ""}, not before ${notBefore.toISOString()}): ${fault.reason}`,
    });
    this.opts.log(`requeued ${claim.id}: provider ${fault.kind}, not before ${notBefore.toISOString()}`);
    return true;
  }

  /** A run that ended: a coder stopped by the provider closes the gate; any other end reopens it. */
  ended(end: RunEnd): ProviderFault | null {
    const fault = classifyCoderEnd(end);
    if (fault) this.gate.trip(fault);
    else if (end.verdict !== "unsupported") this.gate.succeeded(); // a session that reached the model
    this.show(this.gate.isOpen());
    return fault;
  }

  /** A config reload: latches end (backoffs keep their time). */
  reset(why: string): void {
    this.gate.reset();
    if (this.gate.isOpen() && this.shown !== "open") this.opts.log(`provider gate reset (${why})`);
    this.show(this.gate.isOpen());
  }

  /** Says once (and again after a reload changes it) that the readiness probe is off or skipped. */
  private noteProbe(): void {
    const note = !this.opts.worker().probeEnabled
      ? "readiness probe off (worker.probeEnabled is false)"
      : this.opts.endpoint === null
        ? "readiness probe skipped: no live model endpoint configured (replayed or offline runs)"
        : null;
    if (note !== null && note !== this.probeNote) this.opts.log(note);
    this.probeNote = note;
  }

  private show(open: boolean): boolean {
    const now = this.gate.snapshot();
    if (now.state !== this.shown) {
      this.opts.log(
        now.state === "open"
          ? "provider gate open: claiming again"
          : `provider gate closed: ${now.state}${now.until ? ` until ${now.until}` : " (latched until a successful session, a config reload or a restart)"}: ${now.reason}`,
      );
      if (now.state !== "open") this.opts.onClosed?.(now.state);
      this.shown = now.state;
    }
    return open;
  }
}
