import { LATCHES, type ProviderFault, type ProviderFaultKind } from "./provider-fault.js";

export type GateState = "open" | ProviderFaultKind;

/** What another part (the ops engineer's `/health`) may read of the gate: a copy, never the gate. */
export interface GateSnapshot {
  state: GateState;
  /** Why it is closed; null when open. */
  reason: string | null;
  /** When a backoff ends (ISO 8601); null when open or latched (a latch has no end time). */
  until: string | null;
}

export interface GateTimings {
  /** `rate_limited` without Retry-After starts here; each further one in a row doubles. */
  rateLimitBaseMs: number;
  rateLimitMaxMs: number;
  /** `outage_backoff`: one retry interval. */
  outageMs: number;
}

interface Closure {
  kind: ProviderFaultKind;
  reason: string;
}

/**
 * The provider gate (issue 12, ADR 0052): pure state, an injected clock, no I/O. A latch
 * (auth_error, quota_exhausted, misconfig) stays until `succeeded()` or `reset()`; a backoff
 * (rate_limited, outage_backoff) ends at its time. A latch outranks a backoff: a backoff tripped
 * while latched is remembered but shown only once the latch is gone. Consecutive rate limits double
 * the wait from the server's Retry-After (or the base), capped; a successful session ends the streak.
 */
export class ProviderGate {
  private latch: Closure | null = null;
  private backoff: (Closure & { until: number }) | null = null;
  private rateStreak = 0;

  /** `timings` is read at every trip, so a reloaded config applies to the next one (ADR 0052). */
  constructor(
    private readonly timings: () => GateTimings,
    private readonly now: () => number = Date.now,
  ) {}

  /** Closes the gate for `fault`; returns the snapshot it leaves. */
  trip(fault: ProviderFault): GateSnapshot {
    if (LATCHES.has(fault.kind)) {
      this.latch = { kind: fault.kind, reason: fault.reason };
      return this.snapshot();
    }
    const wait =
      fault.kind === "rate_limited" ? this.rateLimitWait(fault.retryAfterMs) : this.timings().outageMs;
    const until = this.now() + wait;
    // A running backoff is never shortened by a later, shorter one.
    if (this.backoff === null || this.backoff.until <= this.now() || until >= this.backoff.until)
      this.backoff = { kind: fault.kind, reason: fault.reason, until };
    return this.snapshot();
  }

  /** A session that reached the endpoint and finished: every latch and backoff ends, the streak too. */
  succeeded(): void {
    this.latch = null;
    this.backoff = null;
    this.rateStreak = 0;
  }

  /** A config reload (or the operator): the latch ends; a running backoff keeps its time. */
  reset(): void {
    this.latch = null;
  }

  isOpen(): boolean {
    return this.snapshot().state === "open";
  }

  /** When a closed gate opens by itself (ms since the epoch); null when open or latched. */
  opensAt(): number | null {
    if (this.latch) return null;
    return this.backoff && this.backoff.until > this.now() ? this.backoff.until : null;
  }

  snapshot(): GateSnapshot {
    if (this.latch) return { state: this.latch.kind, reason: this.latch.reason, until: null };
    if (this.backoff && this.backoff.until > this.now())
      return {
        state: this.backoff.kind,
        reason: this.backoff.reason,
        until: new Date(this.backoff.until).toISOString(),
      };
    return { state: "open", reason: null, until: null };
  }

  private rateLimitWait(retryAfterMs: number | null): number {
    const { rateLimitBaseMs, rateLimitMaxMs } = this.timings();
    const base = retryAfterMs ?? rateLimitBaseMs;
    const wait = Math.min(rateLimitMaxMs, base * 2 ** this.rateStreak);
    this.rateStreak++;
    return wait;
  }
}
