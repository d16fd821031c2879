import assert from "node:assert/strict";
import { test } from "node:test";
import { cartSummary, cartTotal } from "../src/cart.js";

test("referee: the total multiplies every price by its quantity", () => {
  const items = [
    { priceCents: 250, quantity: 3 },
    { priceCents: 199, quantity: 1 },
    { priceCents: 5, quantity: 7 },
  ];
  assert.equal(cartTotal(items), 984);
  assert.equal(cartSummary(items), "11 items · $9.84");
});
