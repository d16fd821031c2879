import { readFile, unlink } from "node:fs/promises";
import { hostname } from "node:os";
import { type TicketLease, TicketLease as TicketLeaseSchema } from "../artifacts/schemas/ticket.js";
import { leasePath, processIsGone } from "../home/daemon-paths.js";
import { writeFileDurably } from "../util/durable-write.js";

/**
 * A claim's lease (issue 12, instead of junco's "everything in processing/ is orphaned"): who holds
 * the ticket (pid, host), since when, and the last heartbeat. Written atomically beside the claimed
 * ticket; its file name carries the claim token, so a lease can only ever describe its own claim.
 */
export function newLease(id: string, token: string, now: Date): TicketLease {
  const at = now.toISOString();
  return { ticket_id: id, token, owner_pid: process.pid, host: hostname(), started_at: at, heartbeat_at: at };
}

export async function writeLease(root: string, lease: TicketLease): Promise<void> {
  await writeFileDurably(
    leasePath(root, lease.ticket_id, lease.token),
    `${JSON.stringify(lease, null, 2)}\n`,
  );
}

/** The lease of a claim, or null when missing or unreadable (a torn or foreign file is no lease). */
export async function readLease(root: string, id: string, token: string): Promise<TicketLease | null> {
  try {
    const parsed = TicketLeaseSchema.safeParse(
      JSON.parse(await readFile(leasePath(root, id, token), "utf8")),
    );
    return parsed.success && parsed.data.token === token && parsed.data.ticket_id === id ? parsed.data : null;
  } catch {
    return null;
  }
}

export async function removeLease(root: string, id: string, token: string): Promise<void> {
  await unlink(leasePath(root, id, token)).catch(() => undefined);
}

/**
 * Why a lease no longer holds its ticket, or null while it does: its owner process is gone (same
 * host, checked at once) or its heartbeat is older than `staleMs` (any host, e.g. a hung owner).
 */
export function leaseExpiry(
  lease: TicketLease,
  now: Date,
  staleMs: number,
): "owner_dead" | "heartbeat_stale" | null {
  if (processIsGone({ pid: lease.owner_pid, host: lease.host })) return "owner_dead";
  const beat = Date.parse(lease.heartbeat_at);
  if (Number.isNaN(beat) || now.getTime() - beat > staleMs) return "heartbeat_stale";
  return null;
}
