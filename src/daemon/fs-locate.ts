import { readdir } from "node:fs/promises";
import type { TicketState } from "../artifacts/schemas/ticket.js";
import { isTaskId, parseClaimedName, QUEUE_STATES, queueDir } from "../home/daemon-paths.js";
import { readLease } from "./lease.js";
import type { QueueEntry } from "./ticket-queue.js";
import { readTicketRecord } from "./ticket-records.js";

/**
 * Where tickets are. The queue folder a ticket's file is in is the truth (the move is what each
 * state change wins); the record says the rest. Reads only: never creates the data root.
 */
export interface Located {
  id: string;
  state: TicketState;
  /** The claim token, for processing/ entries. */
  token: string | null;
}

export async function locateAll(root: string): Promise<Located[]> {
  const found: Located[] = [];
  for (const state of QUEUE_STATES) {
    const names = await readdir(queueDir(root, state)).catch(() => [] as string[]);
    for (const name of names.sort()) {
      if (state === "processing") {
        const claimed = parseClaimedName(name);
        if (claimed && isTaskId(claimed.id)) found.push({ ...claimed, state });
      } else if (name.endsWith(".md") && isTaskId(name.slice(0, -3))) {
        found.push({ id: name.slice(0, -3), state, token: null });
      }
    }
  }
  return found;
}

export async function locate(root: string, id: string): Promise<Located | null> {
  return (await locateAll(root)).find((entry) => entry.id === id) ?? null;
}

export async function entryOf(root: string, located: Located): Promise<QueueEntry> {
  return {
    id: located.id,
    state: located.state,
    record: await readTicketRecord(root, located.id).catch(() => null),
    lease: located.token ? await readLease(root, located.id, located.token) : null,
  };
}
