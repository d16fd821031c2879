#!/usr/bin/env node
// Scripted coder for cart-summary's copy tweak: the empty-cart text.
import { readFileSync, writeFileSync } from "node:fs";

const file = "src/labels.js";
const source = readFileSync(file, "utf8");
const before = 'empty: "No items",';
if (!source.includes(before)) {
  console.log(`I could not find the empty-cart copy in ${file}; nothing changed.`);
  process.exit(1);
}
writeFileSync(file, source.replace(before, 'empty: "Your cart is empty",'));
console.log('The empty cart now reads "Your cart is empty"; only src/labels.js changed.');
