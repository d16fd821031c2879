import { ArtifactStore } from "../artifacts/index.js";
import type { TicketResult } from "../artifacts/schemas/ticket.js";
import { ticketRecordDir } from "../home/daemon-paths.js";

export type TicketResultFields = Omit<TicketResult, "revision">;

/**
 * Writes the terminal record `data/tickets/<id>/ticket_result.json` (revisioned: a ticket run again
 * after `devflow retry` gets a new revision, the old one stays in history/).
 */
export async function writeTicketResult(root: string, fields: TicketResultFields): Promise<TicketResult> {
  const store = new ArtifactStore(ticketRecordDir(root, fields.id));
  const current = await store.read("ticket_result");
  return store.write("ticket_result", fields, { expectedRevision: current?.revision ?? 0 });
}

export async function readTicketResult(root: string, id: string): Promise<TicketResult | null> {
  return new ArtifactStore(ticketRecordDir(root, id)).read("ticket_result");
}
