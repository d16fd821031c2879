#!/usr/bin/env node
// A deterministic stand-in for a coding agent, used by the demo and the scenario suite through
// `--coder "command:node scenarios/coders/near-miss-coder.mjs"`. It reads the prompt devflow wrote
// (DEVFLOW_PROMPT_FILE) like a real agent would: on a first attempt it makes a plausible near
// miss (trims only the end of the email); once the prompt carries "Known errors from prior
// attempts" it applies the real fix. So the demo shows repair context actually reaching the coder.
import { readFileSync, writeFileSync } from "node:fs";

const prompt = readFileSync(process.env.DEVFLOW_PROMPT_FILE, "utf8");
const file = "src/csv-import.js";
const source = readFileSync(file, "utf8");
const before = "if (!EMAIL.test(row.email))";
const repaired = prompt.includes("Known errors from prior attempts");
const fixed = repaired ? "if (!EMAIL.test(row.email.trim()))" : "if (!EMAIL.test(row.email.trimEnd()))";
const current = source.includes(before) ? before : "if (!EMAIL.test(row.email.trimEnd()))";
if (!source.includes(current)) {
  console.log("I could not find the email validation in src/csv-import.js; nothing changed.");
  process.exit(1);
}
writeFileSync(file, source.replace(current, fixed));
console.log(
  repaired
    ? "Trim both ends of the email before validating it (the earlier trimEnd() left leading spaces)."
    : "Trimmed trailing whitespace from the email before validation. All done, the import works now.",
);
