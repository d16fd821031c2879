#!/usr/bin/env node
// Scripted coder for invite-acceptance: sets accepted_at before the invite is persisted.
import { readFileSync, writeFileSync } from "node:fs";

const file = "src/invites.js";
const source = readFileSync(file, "utf8");
const before = [
  '  invite.status = "accepted";',
  "  const saved = store.save(invite);",
  "  saved.accepted_at = now.toISOString();",
  "  return saved;",
].join("\n");
if (!source.includes(before)) {
  console.log(`I could not find the acceptance code in ${file}; nothing changed.`);
  process.exit(1);
}
const after = [
  '  invite.status = "accepted";',
  "  invite.accepted_at = now.toISOString();",
  "  return store.save(invite);",
];
writeFileSync(file, source.replace(before, after.join("\n")));
console.log("acceptInvite sets accepted_at before store.save, so the accepted invite persists.");
