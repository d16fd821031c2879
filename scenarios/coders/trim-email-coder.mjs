#!/usr/bin/env node
// Scripted coder for the csv-import scenarios: trims the email before validating it (the real fix).
import { readFileSync, writeFileSync } from "node:fs";

const file = "src/csv-import.js";
const source = readFileSync(file, "utf8");
const before = "if (!EMAIL.test(row.email))";
if (!source.includes(before)) {
  console.log(`I could not find the email validation in ${file}; nothing changed.`);
  process.exit(1);
}
writeFileSync(file, source.replace(before, "if (!EMAIL.test(row.email.trim()))"));
console.log("validateRow now trims the email before testing the pattern; nothing else changed.");
