import type { CoderUsage } from "../contract.js";

/** Token and cost totals summed over several reports (steps, turns, models); cost stays null when none is known. */
export class UsageTotals {
  private input = 0;
  private output = 0;
  private cost: number | null = null;
  private seen = false;

  add(input: number | undefined, output: number | undefined, costUsd?: number | undefined): void {
    if (input === undefined && output === undefined && costUsd === undefined) return;
    this.seen = true;
    this.input += input ?? 0;
    this.output += output ?? 0;
    if (costUsd !== undefined) this.cost = (this.cost ?? 0) + costUsd;
  }

  /** Replaces the cost with a cumulative figure the CLI reports (e.g. a session total). */
  setCost(costUsd: number): void {
    this.seen = true;
    this.cost = costUsd;
  }

  result(): CoderUsage | null {
    if (!this.seen) return null;
    return {
      input_tokens: Math.round(this.input),
      output_tokens: Math.round(this.output),
      cost_usd: this.cost,
    };
  }
}
