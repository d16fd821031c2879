#!/usr/bin/env node
// Scripted coder for cart-summary: the total multiplies each price by its quantity.
import { readFileSync, writeFileSync } from "node:fs";

const file = "src/cart.js";
const source = readFileSync(file, "utf8");
const before = "sum + item.priceCents,";
if (!source.includes(before)) {
  console.log(`I could not find the total in ${file}; nothing changed.`);
  process.exit(1);
}
writeFileSync(file, source.replace(before, "sum + item.priceCents * item.quantity,"));
console.log("cartTotal now multiplies each price by its quantity.");
