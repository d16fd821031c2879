import { appendFileSync } from "node:fs";
import { DaemonConfig } from "../../src/artifacts/schemas/ticket.js";
import { FsTicketQueue } from "../../src/daemon/fs-queue.js";

/**
 * A claimer process for the daemon's tests: `tsx claim-loop.ts <data root> <log file> <mode>`.
 * - `drain`: claims until the inbox is empty, finishing each ticket at once (after 25 ms when it has a
 *   repository); appends one line per
 *   ticket to the log: `<id> <repo key or -> <claim ns> <finish ns> <pid>` (hrtime is system-wide
 *   monotonic on Linux, so lines of two processes compare).
 * - `claim-and-die`: claims one ticket, prints its id, and exits without finishing it (a crash).
 */
const [root, log, mode] = process.argv.slice(2);
if (!root || !log || !mode) throw new Error("usage: claim-loop.ts <root> <log> <drain|claim-and-die>");
const queue = new FsTicketQueue(root, DaemonConfig.parse({}));

if (mode === "claim-and-die") {
  const claim = await queue.claim();
  process.stdout.write(`${claim?.id ?? "none"}\n`);
  process.exit(0);
}

let idle = 0;
while (idle < 50) {
  const claim = await queue.claim();
  if (!claim) {
    idle += 1;
    await new Promise((r) => setTimeout(r, 20));
    continue;
  }
  idle = 0;
  const claimed = process.hrtime.bigint();
  // Hold a repository's ticket for a moment, as a real run would: a second claim of the same
  // repository during this window would overlap in the logs.
  if (claim.record.repo_key) await new Promise((r) => setTimeout(r, 25));
  const finished = process.hrtime.bigint();
  appendFileSync(log, `${claim.id} ${claim.record.repo_key ?? "-"} ${claimed} ${finished} ${process.pid}\n`);
  await queue.finish(claim, { status: "completed", reason: null });
}
