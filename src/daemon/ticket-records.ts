import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { ArtifactStore } from "../artifacts/index.js";
import type { TicketRecord } from "../artifacts/schemas/ticket.js";
import { ticketRecordDir } from "../home/daemon-paths.js";

/**
 * A ticket's revisioned record, `data/tickets/<id>/ticket_record.json`, through the artifact store
 * (atomic replace, validated by ajv and zod, every earlier revision kept in history/, a write from a
 * stale revision refused). Only the process that just won the ticket's move (submit's link, a
 * claim's or recovery's rename, cancel, retry) writes it, so writers never overlap.
 */
export type RecordFields = Omit<TicketRecord, "revision">;

/**
 * Reserves `id` by creating its record folder (mkdir without recursive fails if it exists): ids are
 * unique across the data root's whole history, so queue files named by id never collide.
 */
export async function reserveTicketId(root: string, id: string): Promise<boolean> {
  await mkdir(dirname(ticketRecordDir(root, id)), { recursive: true });
  try {
    await mkdir(ticketRecordDir(root, id));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

export async function readTicketRecord(root: string, id: string): Promise<TicketRecord | null> {
  return new ArtifactStore(ticketRecordDir(root, id)).read("ticket_record");
}

export async function createTicketRecord(root: string, fields: RecordFields): Promise<TicketRecord> {
  return new ArtifactStore(ticketRecordDir(root, fields.id)).write("ticket_record", fields, {
    expectedRevision: 0,
  });
}

/** Read, change, write at the next revision; `update` gets the current record. */
export async function updateTicketRecord(
  root: string,
  id: string,
  update: (current: TicketRecord) => Partial<RecordFields>,
  now = new Date(),
): Promise<TicketRecord> {
  const store = new ArtifactStore(ticketRecordDir(root, id));
  const current = await store.read("ticket_record");
  if (!current) throw new Error(`ticket ${id} has no record`);
  const { revision, ...fields } = current;
  return store.write(
    "ticket_record",
    { ...fields, ...update(current), updated_at: now.toISOString() },
    { expectedRevision: revision },
  );
}
