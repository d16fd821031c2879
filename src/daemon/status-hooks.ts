/**
 * What `/health` reports about parts other assignments own (ADR 0054): the provider gate and the
 * spend ledger. Each is a hook the worker (or whatever owns the part) fills; until then /health
 * says the gate is `open` with `source: "placeholder"`, and today's spend is `null` ("unknown"),
 * never 0: an unwired ledger must not read as "nothing spent".
 */
export interface GateSnapshot {
  /** `open` (claims allowed) or the closed state's name (auth_error, rate_limited, …). */
  state: string;
  reason: string | null;
  /** ISO instant a backoff ends; null for open or for a latch. */
  until: string | null;
  source: "gate" | "placeholder";
}

export interface SpendSnapshot {
  /** Local calendar day, YYYY-MM-DD. */
  day: string;
  /** Known cost of the day; null when unknown. */
  usd: number | null;
  /** Sessions whose cost is unknown (never counted as 0). */
  unknown_sessions: number;
  budget_usd: number | null;
}

export interface DaemonStatusHooks {
  gateSnapshot(): GateSnapshot;
  /** null: no spend ledger wired, so today's spend is unknown. */
  spendToday(): SpendSnapshot | null | Promise<SpendSnapshot | null>;
}

export const PLACEHOLDER_GATE: GateSnapshot = {
  state: "open",
  reason: null,
  until: null,
  source: "placeholder",
};

/**
 * The hooks of `owner` (the worker): its `gateSnapshot()` and `spendToday()` when it has them,
 * else the placeholders. Lets the gate and the ledger land without touching the health server.
 */
export function statusHooksOf(owner: object): DaemonStatusHooks {
  const parts = owner as Partial<DaemonStatusHooks>;
  return {
    gateSnapshot: () => {
      const gate = parts.gateSnapshot?.call(owner);
      return gate ? { ...gate, source: "gate" } : PLACEHOLDER_GATE;
    },
    spendToday: () => parts.spendToday?.call(owner) ?? null,
  };
}
