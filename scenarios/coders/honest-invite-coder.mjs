#!/usr/bin/env node
// Scripted coder whose first attempt falls short and says so plainly (what changed, what still
// fails, what remains); once the prompt carries the lessons of that attempt it finishes the fix.
import { readFileSync, writeFileSync } from "node:fs";

const prompt = readFileSync(process.env.DEVFLOW_PROMPT_FILE, "utf8");
const repaired = prompt.includes("Known errors from prior attempts");
const file = "src/invites.js";
const source = readFileSync(file, "utf8");
const original = [
  '  invite.status = "accepted";',
  "  const saved = store.save(invite);",
  "  saved.accepted_at = now.toISOString();",
  "  return saved;",
].join("\n");
const partial = [
  '  invite.status = "accepted";',
  "  invite.accepted_at = now;",
  "  return store.save(invite);",
].join("\n");
const fixed = [
  '  invite.status = "accepted";',
  "  invite.accepted_at = now.toISOString();",
  "  return store.save(invite);",
].join("\n");
const current = source.includes(original) ? original : partial;
if (!source.includes(current)) {
  console.log(`I could not find the acceptance code in ${file}; nothing changed.`);
  process.exit(1);
}
writeFileSync(file, source.replace(current, repaired ? fixed : partial));
if (repaired) {
  console.log("accepted_at is now set as an ISO string before store.save; the earlier Date value is gone.");
} else {
  console.log(
    "Partial: I moved the accepted_at assignment before store.save, but I assign a Date, and I could not check whether the store accepts it.",
  );
  console.log("Not verified. Remaining: confirm the type InviteStore.save expects for accepted_at.");
  process.exit(1);
}
