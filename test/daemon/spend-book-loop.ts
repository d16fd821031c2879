/**
 * A booking process for the spend ledger's atomicity test: `tsx spend-book-loop.ts <root> <ticket>
 * <n>` books `n` sessions of ticket `<ticket>`, one at a time: $0.25 each (exact in binary, so sums
 * compare exactly), every third one also of unknown cost. It waits for `<root>/go` first, so two
 * processes start booking at the same moment.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { bookSpend } from "../../src/daemon/spend-ledger.js";

const [root, ticket, count] = process.argv.slice(2);
if (!root || !ticket || !count) throw new Error("usage: spend-book-loop.ts <root> <ticket> <n>");
while (!existsSync(join(root, "go"))) await new Promise((r) => setTimeout(r, 5));
for (let i = 0; i < Number(count); i++)
  await bookSpend(
    root,
    [{ ticketId: ticket, role: "code", knownUsd: 0.25, costUnknown: i % 3 === 0 }],
    new Date(),
  );
process.stdout.write("done\n");
