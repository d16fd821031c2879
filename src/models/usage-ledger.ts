import { emptyUsage, type Usage } from "../artifacts/schemas/index.js";
import type { Role, UsageSnapshot } from "./contract.js";
import { costUsd, priceFor } from "./prices.js";

export interface TokenCounts {
  input_tokens: number;
  output_tokens: number;
}

/** Sums model calls per run, per role and per attempt; costs are priced at booking time. */
export class UsageLedger {
  private readonly total: Usage = emptyUsage();
  private readonly byRole = new Map<string, Usage>();
  private readonly byAttempt = new Map<string, Usage>();
  private readonly unpriced = new Set<string>();
  /** Calls whose cost is unknown (unpriced model, a coder that reported none): counted, never as $0 (ADR 0053). */
  private unknownCostCalls = 0;

  book(role: Role, model: string, tokens: TokenCounts, attemptId: string | null): void {
    if (!priceFor(model).priced) {
      this.unpriced.add(model);
      this.unknownCostCalls += 1;
    }
    const cost = costUsd(model, nonNegativeInt(tokens.input_tokens), nonNegativeInt(tokens.output_tokens));
    this.add(role, tokens, cost, attemptId);
  }

  /**
   * Usage spent outside devflow's own model layer (a coder CLI's run), as that tool reported it:
   * counted in the same totals so the run's cost includes the coder, usually its largest part.
   */
  bookExternal(
    role: Role,
    tokens: TokenCounts,
    costUsdReported: number | null,
    attemptId: string | null,
  ): void {
    if (costUsdReported === null || !Number.isFinite(costUsdReported) || costUsdReported < 0)
      this.unknownCostCalls += 1;
    this.add(
      role,
      tokens,
      Number.isFinite(costUsdReported) && (costUsdReported ?? 0) > 0 ? (costUsdReported ?? 0) : 0,
      attemptId,
    );
  }

  private add(role: Role, tokens: TokenCounts, cost: number, attemptId: string | null): void {
    const input = nonNegativeInt(tokens.input_tokens);
    const output = nonNegativeInt(tokens.output_tokens);
    const targets = [this.total, bucket(this.byRole, role)];
    if (attemptId !== null) targets.push(bucket(this.byAttempt, attemptId));
    for (const usage of targets) {
      usage.input_tokens += input;
      usage.output_tokens += output;
      usage.total_tokens += input + output;
      usage.cost_usd += cost;
      usage.calls += 1;
    }
  }

  snapshot(): UsageSnapshot {
    return {
      total: { ...this.total },
      by_role: copyOf(this.byRole),
      by_attempt: copyOf(this.byAttempt),
      priced: this.unpriced.size === 0,
      unpriced_models: [...this.unpriced].sort(),
      unknown_cost_calls: this.unknownCostCalls,
    };
  }
}

function bucket(map: Map<string, Usage>, key: string): Usage {
  let usage = map.get(key);
  if (usage === undefined) {
    usage = emptyUsage();
    map.set(key, usage);
  }
  return usage;
}

function copyOf(map: Map<string, Usage>): Record<string, Usage> {
  return Object.fromEntries([...map].map(([key, usage]) => [key, { ...usage }]));
}

// Providers occasionally omit or garble counts; a bad number must not poison the totals.
function nonNegativeInt(n: number): number {
  return Number.isFinite(n) && n > 0 ? Math.round(n) : 0;
}
