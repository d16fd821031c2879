import { randomBytes } from "node:crypto";
import { link, open, readdir, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import type { DaemonConfig } from "../artifacts/schemas/ticket.js";
import { isTaskId, queueDir, queueTmpDir } from "../home/daemon-paths.js";
import { submitTicket } from "./fs-submit.js";
import { readFirstBytes } from "./read-first-bytes.js";
import type { SubmitResult } from "./ticket-queue.js";
import { readTicketRecord } from "./ticket-records.js";

/**
 * A file left alone this long after its last write counts as complete: a ticket copied into
 * inbox/ with `cp` is written in pieces, and half a ticket must not be linted and queued.
 */
export const DROPPED_SETTLE_MS = 2_000;

export interface Adopted extends SubmitResult {
  /** The file's name as dropped into inbox/. */
  dropped: string;
}

/**
 * Tickets dropped into inbox/ by hand (`mv fix.md ~/.devflow/queue/inbox/`): a `.md` file with no
 * record. Each one is taken out of inbox/ by a rename (of two daemons, one wins), then submitted
 * like `devflow submit`: plan-lint before anything else, a fresh id, a record, and inbox/ or
 * failed/. The dropped file itself is then removed (its bytes are the queued ticket). Its `repo:`
 * is read relative to inbox/, so a dropped ticket names an absolute path or a URL.
 */
export async function adoptDroppedTickets(
  root: string,
  config: DaemonConfig,
  now = new Date(),
): Promise<Adopted[]> {
  const inbox = queueDir(root, "inbox");
  await putBackAbandoned(root, now);
  const names = await readdir(inbox).catch(() => [] as string[]);
  const adopted: Adopted[] = [];
  for (const name of names) {
    if (!name.endsWith(".md") || name.startsWith(".")) continue;
    const id = name.slice(0, -3);
    if (isTaskId(id) && (await readTicketRecord(root, id).catch(() => null))) continue;
    const dropped = join(inbox, name);
    const info = await stat(dropped).catch(() => null);
    if (!info?.isFile() || now.getTime() - info.mtimeMs < DROPPED_SETTLE_MS) continue;
    const taken = join(queueTmpDir(root), `adopt-${randomBytes(6).toString("hex")}-${name}`);
    try {
      await rename(dropped, taken);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue; // another daemon took it
      throw error;
    }
    let result: SubmitResult;
    try {
      const handle = await open(taken, "r");
      const bytes = await readFirstBytes(handle, config.max_ticket_bytes + 1).finally(() => handle.close());
      result = await submitTicket(root, config, dropped, bytes, now);
    } catch (error) {
      // Not lost: the file goes back where the user put it (never over a newer one) for the next poll.
      await putBack(root, taken, name);
      throw error;
    }
    await rm(taken, { force: true });
    adopted.push({ ...result, dropped: name });
  }
  return adopted;
}

/** An adoption takes milliseconds: a taken file this old was left by a daemon that died mid-way. */
const ABANDONED_MS = 10 * 60_000;

/** Taken files a killed adopter left in queue/.tmp go back into the inbox under their dropped name. */
async function putBackAbandoned(root: string, now: Date): Promise<void> {
  const tmp = queueTmpDir(root);
  for (const entry of await readdir(tmp).catch(() => [] as string[])) {
    const match = /^adopt-[0-9a-f]{12}-(.+\.md)$/.exec(entry);
    if (!match?.[1]) continue;
    const info = await stat(join(tmp, entry)).catch(() => null);
    if (info && now.getTime() - info.mtimeMs > ABANDONED_MS) await putBack(root, join(tmp, entry), match[1]);
  }
}

/** Links `taken` back into inbox/ as `name` (never replacing a file there), then removes it. */
async function putBack(root: string, taken: string, name: string): Promise<void> {
  try {
    await link(taken, join(queueDir(root, "inbox"), name));
  } catch (error) {
    // A file of that name arrived meanwhile: keep ours under a name of its own.
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    await link(taken, join(queueDir(root, "inbox"), `${randomBytes(4).toString("hex")}-${name}`));
  }
  await rm(taken, { force: true });
}
