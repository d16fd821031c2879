#!/usr/bin/env node
// A deterministic stand-in for a coding agent for the plan demo (`devflow demo --plan`) and the
// compose lane tests. It reads the prompt devflow wrote (DEVFLOW_PROMPT_FILE) and does the task the
// prompt names: trim emails, reject duplicate emails, or skip comment lines in src/csv-import.js.
// The duplicate check's first attempt is a near miss (case-sensitive); once the prompt carries
// "Known errors from prior attempts" it compares lower-cased emails. T2_MODE "never" (set in the
// script's own copy by tests and plan-coder-never-repairs.mjs, never from the environment) keeps
// the near miss forever; "first-pass" (plan-coder-first-pass.mjs) gets it right at once.
import { readFileSync, writeFileSync } from "node:fs";

const T2_MODE = "repair";
const prompt = readFileSync(process.env.DEVFLOW_PROMPT_FILE, "utf8");
const file = "src/csv-import.js";
let source = readFileSync(file, "utf8");
const repaired = prompt.includes("Known errors from prior attempts");
const edit = (from, to) => {
  if (!source.includes(from)) {
    console.log(`I could not find ${JSON.stringify(from)} in ${file}; nothing changed.`);
    process.exit(1);
  }
  source = source.replace(from, to);
};

if (/Trim emails/i.test(prompt)) {
  edit("if (!EMAIL.test(row.email))", "if (!EMAIL.test(row.email.trim()))");
  console.log("Trimmed the email before validating it.");
} else if (/duplicate emails/i.test(prompt)) {
  const caseless = T2_MODE === "first-pass" || (repaired && T2_MODE !== "never");
  const key = caseless ? "row.email.trim().toLowerCase()" : "row.email.trim()";
  if (source.includes("const seen = new Set();")) {
    // A later attempt in the same checkout: only the comparison changes.
    source = source.replace(/const key = [^;]+;/, `const key = ${key};`);
  } else {
    edit("  const rejected = [];\n", "  const rejected = [];\n  const seen = new Set();\n");
    edit(
      "    const error = validateRow(row);\n",
      `    const key = ${key};\n    const error = validateRow(row) ?? (seen.has(key) ? \`duplicate email: \${key}\` : null);\n    seen.add(key);\n`,
    );
  }
  console.log(caseless ? "Duplicates are compared lower-cased now." : "Rejected repeated emails. Done.");
} else if (/comment lines/i.test(prompt)) {
  edit(".filter((l) => l.trim())", '.filter((l) => l.trim() && !l.trim().startsWith("#"))');
  console.log("Comment lines are skipped.");
} else {
  console.log("I do not know this task; nothing changed.");
  process.exit(1);
}
writeFileSync(file, source);
