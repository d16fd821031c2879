/**
 * Public list prices in US dollars per 1M tokens (standard tier, uncached input). Costs are
 * estimates for reports and budgets, not invoices: update the table and PRICES_AS_OF together.
 */
export const PRICES_AS_OF = "2025-08-07";

export interface ModelPrice {
  input_per_mtok: number;
  output_per_mtok: number;
}

const PRICES: Readonly<Record<string, ModelPrice>> = {
  "gpt-4.1": { input_per_mtok: 2.0, output_per_mtok: 8.0 },
  "gpt-4.1-mini": { input_per_mtok: 0.4, output_per_mtok: 1.6 },
  "gpt-4.1-nano": { input_per_mtok: 0.1, output_per_mtok: 0.4 },
  "gpt-4o": { input_per_mtok: 2.5, output_per_mtok: 10.0 },
  "gpt-4o-mini": { input_per_mtok: 0.15, output_per_mtok: 0.6 },
  "o4-mini": { input_per_mtok: 1.1, output_per_mtok: 4.4 },
  "gpt-5": { input_per_mtok: 1.25, output_per_mtok: 10.0 },
  "gpt-5-mini": { input_per_mtok: 0.25, output_per_mtok: 2.0 },
};

export type PriceLookup =
  | ({ priced: true } & ModelPrice)
  | { priced: false; input_per_mtok: 0; output_per_mtok: 0 };

/**
 * Price of a model. Dated snapshots ("gpt-4.1-mini-2025-04-14") cost what their alias costs;
 * matching is exact otherwise, so "gpt-4.1-mini" never picks up the "gpt-4.1" price.
 */
export function priceFor(model: string): PriceLookup {
  const alias = model.trim().replace(/-\d{4}-\d{2}-\d{2}$/, "");
  const price = PRICES[alias];
  if (price === undefined) return { priced: false, input_per_mtok: 0, output_per_mtok: 0 };
  return { priced: true, ...price };
}

export function costUsd(model: string, inputTokens: number, outputTokens: number): number {
  const price = priceFor(model);
  return (inputTokens * price.input_per_mtok + outputTokens * price.output_per_mtok) / 1_000_000;
}

export function pricedModels(): string[] {
  return Object.keys(PRICES);
}
