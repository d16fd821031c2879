import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { QueueDepths } from "./queue-depths.js";
import type { WorkerEvents } from "./worker-events.js";

/**
 * The daemon's Prometheus metrics (ADR 0054), in a registry of its own (never prom-client's global
 * one: two daemons in one test process, or a library that registers there, must not mix).
 * The worker feeds `events` (claims, ends, requeues, provider-gate trips, and the guard trips it
 * reads from a finished change ticket's artifacts); today's spend is read from the ledger once per
 * scrape (`scrape()`).
 */
export class DaemonMetrics {
  readonly registry = new Registry();
  readonly tickets = new Counter({
    name: "devflow_tickets_total",
    help: "tickets that reached a terminal record, by status and verdict",
    labelNames: ["status", "verdict"] as const,
    registers: [this.registry],
  });
  readonly claimLatency = new Histogram({
    name: "devflow_claim_latency_seconds",
    help: "seconds from a ticket becoming eligible (submitted, or not_before) to its claim",
    buckets: [0.5, 1, 5, 15, 60, 300, 900, 3600, 4 * 3600, 24 * 3600],
    registers: [this.registry],
  });
  readonly requeues = new Counter({
    name: "devflow_requeues_total",
    help: "claims given back to the inbox: transient failure (retry counted) or stop (resumable)",
    labelNames: ["reason"] as const,
    registers: [this.registry],
  });
  readonly gateTrips = new Counter({
    name: "devflow_gate_trips_total",
    help: "times the provider gate closed, by state",
    labelNames: ["state"] as const,
    registers: [this.registry],
  });
  readonly guardTrips = new Counter({
    name: "devflow_guard_trips_total",
    help: "times a guard of the lane refused something a coder or model did, by guard",
    labelNames: ["guard"] as const,
    registers: [this.registry],
  });
  readonly configReloads = new Counter({
    name: "devflow_config_reloads_total",
    help: "config file changes seen while running: applied, or refused (the old config kept)",
    labelNames: ["result"] as const,
    registers: [this.registry],
  });

  private readonly spendUsd: Gauge<"day">;
  private readonly spendUnknown: Gauge<"day">;
  private readonly spendToday: () => Promise<{
    day: string;
    usd: number | null;
    unknown_sessions: number;
  } | null>;

  constructor(status: {
    version: string;
    depths: () => Promise<QueueDepths>;
    running: () => number;
    /** Today's spend from data/spend.json (ADR 0053); null while no worker runs. */
    spendToday: () => Promise<{ day: string; usd: number | null; unknown_sessions: number } | null>;
  }) {
    // Labelled by day so that "unknown" (no series) never reads as a spend of 0. Set by scrape().
    this.spendUsd = new Gauge({
      name: "devflow_spend_today_usd",
      help: "known model and coder cost of today (local day) in USD, from data/spend.json; unknown costs are not in it",
      labelNames: ["day"] as const,
      registers: [this.registry],
    });
    this.spendUnknown = new Gauge({
      name: "devflow_spend_today_unknown_sessions",
      help: "sessions of today whose cost is unknown (never counted as 0 in devflow_spend_today_usd)",
      labelNames: ["day"] as const,
      registers: [this.registry],
    });
    this.spendToday = status.spendToday;
    new Gauge({
      name: "devflow_daemon_info",
      help: "always 1; the labels say which devflow runs",
      labelNames: ["version"] as const,
      registers: [this.registry],
    }).set({ version: status.version }, 1);
    new Gauge({
      name: "devflow_queue_tickets",
      help: "tickets per queue folder",
      labelNames: ["state"] as const,
      registers: [this.registry],
      async collect() {
        for (const [state, n] of Object.entries(await status.depths())) this.set({ state }, n);
      },
    });
    new Gauge({
      name: "devflow_running_tickets",
      help: "tickets this daemon runs now",
      registers: [this.registry],
      collect() {
        this.set(status.running());
      },
    });
    collectDefaultMetrics({ register: this.registry });
  }

  /**
   * The Prometheus text of one scrape. The spend ledger is read once here for both spend gauges
   * (a collect() per gauge read data/spend.json twice per scrape).
   */
  async scrape(): Promise<string> {
    const spend = await this.spendToday();
    this.spendUsd.reset();
    this.spendUnknown.reset();
    if (spend !== null) {
      if (spend.usd !== null) this.spendUsd.set({ day: spend.day }, spend.usd);
      this.spendUnknown.set({ day: spend.day }, spend.unknown_sessions);
    }
    return this.registry.metrics();
  }

  /** What the worker calls. */
  readonly events: WorkerEvents = {
    claimed: (waitSeconds) => this.claimLatency.observe(waitSeconds),
    finished: (status, verdict) => this.tickets.inc({ status, verdict }),
    requeued: (reason) => this.requeues.inc({ reason }),
    gateClosed: (state) => this.gateTrips.inc({ state }),
    guardTripped: (guard) => this.guardTrips.inc({ guard }),
  };
}
