/**
 * Regression (CI of session 25, coder-provider-requeue): the harness's `revisions()` listed a
 * ticket's history by prefix and read `ticket_record.r006.json.<random>`, the temp file of the
 * daemon's atomic write, which the rename had already taken away: ENOENT, a red test with a
 * correct daemon. Fix: only `<name>.rNNN.json` names count (the product's own historyRevisionOf).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { revisions } from "../support/daemon-harness.js";
import { tempDir } from "../support/lane-harness.js";
import type { QueueSandbox } from "../support/queue-harness.js";

it("a ticket's revisions are its history files and the current one, never a write in flight", () => {
  const root = tempDir("devflow-revisions-");
  const ticket = join(root, "data", "tickets", "t1");
  mkdirSync(join(ticket, "history"), { recursive: true });
  writeFileSync(join(ticket, "history", "ticket_record.r001.json"), '{"revision":1}');
  // What an atomic write (writeFileDurably) leaves for a moment: complete or not, not a revision.
  writeFileSync(join(ticket, "history", "ticket_record.r002.json.4242.7.tmp"), '{"revi');
  writeFileSync(join(ticket, "history", "ticket_result.r001.json"), '{"revision":1}');
  writeFileSync(join(ticket, "ticket_record.json"), '{"revision":2}');
  const box = { root } as QueueSandbox;
  expect(revisions<{ revision: number }>(box, "t1", "ticket_record").map((r) => r.revision)).toEqual([1, 2]);
});
