import { describe, expect, it } from "vitest";
import { costUsd, PRICES_AS_OF, pricedModels, priceFor } from "./prices.js";

describe("price table", () => {
  it("prices every model the README lists, as of a stated date", () => {
    expect(pricedModels().sort()).toEqual(
      [
        "gpt-4.1",
        "gpt-4.1-mini",
        "gpt-4.1-nano",
        "gpt-4o",
        "gpt-4o-mini",
        "gpt-5",
        "gpt-5-mini",
        "o4-mini",
      ].sort(),
    );
    expect(PRICES_AS_OF).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it("prices dated snapshots like their alias, without prefix confusion", () => {
    expect(priceFor("gpt-4.1-mini-2025-04-14")).toEqual(priceFor("gpt-4.1-mini"));
    expect(priceFor("gpt-4.1-mini").input_per_mtok).not.toBe(priceFor("gpt-4.1").input_per_mtok);
  });

  it("unknown models cost nothing and say they are unpriced", () => {
    expect(priceFor("qwen2.5-coder")).toEqual({ priced: false, input_per_mtok: 0, output_per_mtok: 0 });
    expect(costUsd("qwen2.5-coder", 1_000_000, 1_000_000)).toBe(0);
  });

  it("costs are per million tokens, input and output apart", () => {
    expect(costUsd("gpt-4.1", 1_000_000, 0)).toBeCloseTo(2, 10);
    expect(costUsd("gpt-4.1", 0, 500_000)).toBeCloseTo(4, 10);
  });
});
