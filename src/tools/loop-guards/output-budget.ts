import { OUTPUT_TOKEN_BUDGET } from "./thresholds.js";
import type { GuardTrip } from "./types.js";

/** Output tokens over the run (from the model's reported usage) beyond the budget. */
export class OutputBudgetGuard {
  private spent = 0;

  constructor(private readonly budget: number = OUTPUT_TOKEN_BUDGET) {
    if (!Number.isInteger(budget) || budget <= 0) {
      throw new RangeError(`the output-token budget must be a positive whole number, got ${budget}`);
    }
  }

  observe(outputTokens: number): GuardTrip | null {
    if (Number.isFinite(outputTokens) && outputTokens > 0) this.spent += outputTokens;
    if (this.spent <= this.budget) return null;
    return {
      kind: "output_budget",
      detail: `the model wrote ${this.spent} output tokens, over the budget of ${this.budget}`,
    };
  }

  reset(): void {
    this.spent = 0;
  }
}
