#!/usr/bin/env node
// Scripted coder for the duplicate-email improvement: rejects a repeated email within one import.
import { readFileSync, writeFileSync } from "node:fs";

const file = "src/csv-import.js";
const source = readFileSync(file, "utf8");
const loop = "    const error = validateRow(row);\n    if (error) rejected.push({ line: index + 2, error });";
if (!source.includes(loop)) {
  console.log(`I could not find the import loop in ${file}; nothing changed.`);
  process.exit(1);
}
const patched = source
  .replace("  const rejected = [];\n", "  const rejected = [];\n  const seen = new Set();\n")
  .replace(
    loop,
    [
      "    const email = row.email.trim().toLowerCase();",
      '    const error = validateRow(row) ?? (seen.has(email) ? "duplicate email" : null);',
      "    if (!error) seen.add(email);",
      "    if (error) rejected.push({ line: index + 2, error });",
    ].join("\n"),
  );
writeFileSync(file, patched);
console.log("importContacts now rejects a repeated email (case-insensitive) with 'duplicate email'.");
