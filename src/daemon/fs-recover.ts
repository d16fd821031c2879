import { readdir, rename, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { isTaskId, leasePath, parseClaimedName, queueDir, queuedTicketPath } from "../home/daemon-paths.js";
import { leaseExpiry, readLease, removeLease } from "./lease.js";
import { releaseRepoClaim, sweepRepoClaims } from "./repo-claim.js";
import type { Recovered } from "./ticket-queue.js";
import { readTicketRecord, updateTicketRecord } from "./ticket-records.js";

/**
 * Returns to the inbox every claimed ticket whose lease owner is dead (same host) or whose heartbeat
 * is older than `staleMs`, and every claimed ticket with no lease older than `staleMs` (its claimer
 * died between the move and the lease). The move back is `processing/<id>@<token>.md` →
 * `inbox/<id>.md`: the token is in the name, so a recovery that decided on an old claim can never
 * move a newer claim of the same ticket. Then leftovers are swept: leases without a claimed ticket
 * and repository claims nobody holds.
 */
export async function recoverClaims(root: string, now: Date, staleMs: number): Promise<Recovered[]> {
  const dir = queueDir(root, "processing");
  const names = await readdir(dir).catch(() => [] as string[]);
  const recovered: Recovered[] = [];
  for (const name of names) {
    const claimed = parseClaimedName(name);
    if (!claimed) continue;
    const { id, token } = claimed;
    const lease = await readLease(root, id, token);
    let why: Recovered["why"] | null;
    if (lease) why = leaseExpiry(lease, now, staleMs);
    else {
      const since = (await stat(join(dir, name)).catch(() => null))?.ctimeMs;
      why = since !== undefined && now.getTime() - since > staleMs ? "no_lease" : null;
    }
    if (!why) continue;
    try {
      await rename(join(dir, name), queuedTicketPath(root, "inbox", id));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw error;
    }
    await removeLease(root, id, token);
    const record = await readTicketRecord(root, id).catch(() => null);
    if (record?.repo_key) await releaseRepoClaim(root, record.repo_key, token);
    if (record) {
      const reason =
        why === "owner_dead"
          ? `recovered: its claimer (pid ${lease?.owner_pid} on ${lease?.host}) died`
          : why === "heartbeat_stale"
            ? `recovered: no heartbeat since ${lease?.heartbeat_at}`
            : "recovered: claimed but never leased";
      await updateTicketRecord(
        root,
        id,
        (current) => ({ state: "inbox", status: "queued", recoveries: current.recoveries + 1, reason }),
        now,
      );
    }
    recovered.push({ id, token, why });
  }
  await sweepLeases(root, names, now, staleMs);
  await sweepRepoClaims(root, now, staleMs);
  return recovered;
}

/** Leases whose claimed ticket is gone (a heartbeat that raced a recovery): removed once expired. */
async function sweepLeases(root: string, names: string[], now: Date, staleMs: number): Promise<void> {
  for (const name of names) {
    const match = /^(.+)@([0-9a-f]{16})\.lease\.json$/.exec(name);
    if (!match?.[1] || !match[2] || !isTaskId(match[1])) continue;
    const [id, token] = [match[1], match[2]];
    if (names.includes(`${id}@${token}.md`)) continue;
    const lease = await readLease(root, id, token);
    if (!lease || leaseExpiry(lease, now, staleMs))
      await unlink(leasePath(root, id, token)).catch(() => undefined);
  }
}
