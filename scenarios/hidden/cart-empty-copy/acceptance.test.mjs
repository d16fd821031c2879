import assert from "node:assert/strict";
import { test } from "node:test";
import { cartSummary } from "../src/cart.js";
import { LABELS } from "../src/labels.js";

test("referee: the empty cart reads the new copy and the checkout copy is unchanged", () => {
  assert.equal(cartSummary([]), "Your cart is empty");
  assert.equal(LABELS.checkout, "Proceed");
});
