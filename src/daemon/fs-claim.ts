import { randomBytes } from "node:crypto";
import { readdir, rename, stat } from "node:fs/promises";
import type { TicketPriority, TicketRecord } from "../artifacts/schemas/ticket.js";
import { DevflowError } from "../errors/index.js";
import { claimedTicketPath, isTaskId, queueDir, queuedTicketPath } from "../home/daemon-paths.js";
import { requestCancel } from "./cancel-request.js";
import { locate } from "./fs-locate.js";
import { newLease, removeLease, writeLease } from "./lease.js";
import { releaseRepoClaim, takeRepoClaim } from "./repo-claim.js";
import type { Claim, ClaimOptions, FinishOutcome, Requeue } from "./ticket-queue.js";
import { readTicketRecord, updateTicketRecord } from "./ticket-records.js";

const RANK: Record<TicketPriority, number> = { high: 0, normal: 1, low: 2 };

/**
 * Records of inbox tickets by id, with the ctime of the inbox file they were read for. A ticket's
 * record does not change while it waits (only whoever moves it out writes it, and a ticket that
 * comes back in gets a new ctime), so a claimer polling a long inbox stats instead of re-reading
 * and re-validating every record on every claim.
 */
export type InboxRecordCache = Map<string, { ctimeMs: number; record: TicketRecord }>;

async function inboxRecord(root: string, id: string, cache: InboxRecordCache): Promise<TicketRecord | null> {
  const info = await stat(queuedTicketPath(root, "inbox", id)).catch(() => null);
  if (!info) {
    cache.delete(id);
    return null;
  }
  const cached = cache.get(id);
  if (cached && cached.ctimeMs === info.ctimeMs) return cached.record;
  const record = await readTicketRecord(root, id).catch(() => null);
  if (record?.state === "inbox") cache.set(id, { ctimeMs: info.ctimeMs, record });
  return record;
}

const isMissing = (error: unknown): boolean => (error as NodeJS.ErrnoException).code === "ENOENT";

/**
 * Claims the next eligible ticket: inbox tickets ordered by priority, then submission time, then
 * id; a ticket whose not_before is still ahead, or whose repository another claim holds, is
 * skipped. The claim is the rename of `inbox/<id>.md` to `processing/<id>@<token>.md`: exactly one
 * claimant's rename succeeds, the others get ENOENT and try the next ticket. A ticket without a
 * readable record (dropped in by hand) is left alone.
 */
export async function claimTicket(
  root: string,
  options: ClaimOptions = {},
  cache: InboxRecordCache = new Map(),
): Promise<Claim | null> {
  const now = options.now ?? new Date();
  const names = await readdir(queueDir(root, "inbox")).catch(() => [] as string[]);
  const candidates: TicketRecord[] = [];
  for (const name of names) {
    const id = name.endsWith(".md") ? name.slice(0, -3) : "";
    if (!isTaskId(id)) continue;
    const record = await inboxRecord(root, id, cache);
    if (!record) continue;
    if (record.not_before && Date.parse(record.not_before) > now.getTime()) continue;
    if (record.repo_key && options.busyRepoKeys?.has(record.repo_key)) continue;
    candidates.push(record);
  }
  candidates.sort(
    (a, b) =>
      RANK[a.priority] - RANK[b.priority] ||
      a.submitted_at.localeCompare(b.submitted_at) ||
      a.id.localeCompare(b.id),
  );
  if (candidates.length > 0 && options.beforeTake && !(await options.beforeTake())) return null;
  for (const record of candidates) {
    const token = randomBytes(8).toString("hex");
    if (record.repo_key && !(await takeRepoClaim(root, record.repo_key, record.id, token))) continue;
    const ticketPath = claimedTicketPath(root, record.id, token);
    try {
      await rename(queuedTicketPath(root, "inbox", record.id), ticketPath);
    } catch (error) {
      if (record.repo_key) await releaseRepoClaim(root, record.repo_key, token);
      if (isMissing(error)) continue;
      throw error;
    }
    const lease = newLease(record.id, token, now);
    await writeLease(root, lease);
    const claimed = await updateTicketRecord(
      root,
      record.id,
      () => ({ state: "processing", status: "running", reason: null }),
      now,
    );
    return { id: record.id, token, ticketPath, record: claimed, lease };
  }
  return null;
}

/**
 * Renews the lease. The lease is written first and the claim checked after: if recovery moved the
 * ticket away in between, the lease just written is removed again and the holder learns it lost.
 */
export async function heartbeat(root: string, claim: Claim, now = new Date()): Promise<void> {
  const lease = { ...claim.lease, heartbeat_at: now.toISOString() };
  await writeLease(root, lease);
  if (!(await stat(claim.ticketPath).catch(() => null))) {
    await removeLease(root, claim.id, claim.token);
    throw leaseLost(claim);
  }
  claim.lease = lease;
}

/**
 * Moves the claimed ticket out of processing/ into `state`, then drops its lease and repository
 * claim. The rename is the check that the claim still holds: a recovered claim's file is gone.
 */
async function giveUpClaim(root: string, claim: Claim, state: "inbox" | "done" | "failed"): Promise<void> {
  try {
    await rename(claim.ticketPath, queuedTicketPath(root, state, claim.id));
  } catch (error) {
    if (isMissing(error)) throw leaseLost(claim);
    throw error;
  }
  await removeLease(root, claim.id, claim.token);
  if (claim.record.repo_key) await releaseRepoClaim(root, claim.record.repo_key, claim.token);
}

/** Moves the claimed ticket to done/ or failed/ (the move is the check that the claim still holds). */
export async function finishClaim(
  root: string,
  claim: Claim,
  outcome: FinishOutcome,
  now = new Date(),
): Promise<TicketRecord> {
  const state = outcome.status === "completed" ? "done" : "failed";
  await giveUpClaim(root, claim, state);
  return updateTicketRecord(
    root,
    claim.id,
    () => ({ state, status: outcome.status, reason: outcome.reason }),
    now,
  );
}

/**
 * processing → inbox: the claim is given back (a run stopped resumably, or a transient failure
 * waiting out its backoff in `not_before`). Like finish, the rename is the check that the claim
 * still holds; the next claim of the ticket gets a new token.
 */
export async function requeueClaim(root: string, claim: Claim, requeue: Requeue): Promise<TicketRecord> {
  await giveUpClaim(root, claim, "inbox");
  return updateTicketRecord(
    root,
    claim.id,
    () => ({
      state: "inbox",
      status: "queued",
      not_before: requeue.notBefore ? requeue.notBefore.toISOString() : null,
      retry_count: requeue.retryCount,
      ...(requeue.providerRequeues === undefined ? {} : { provider_requeues: requeue.providerRequeues }),
      reason: requeue.reason,
    }),
    requeue.now,
  );
}

/**
 * inbox → failed/ (status cancelled). The rename decides against a claim happening at the same time.
 * A running ticket gets a cancel request instead (ADR 0056): the daemon holding it stops the run at
 * its next heartbeat and finishes it cancelled; its record still says processing until then.
 */
export async function cancelTicket(root: string, id: string, now = new Date()): Promise<TicketRecord> {
  try {
    await rename(queuedTicketPath(root, "inbox", id), queuedTicketPath(root, "failed", id));
  } catch (error) {
    if (!isMissing(error)) throw error;
    const where = await locate(root, id);
    if (!where)
      throw new DevflowError(
        "TICKET_NOT_FOUND",
        `no ticket ${id} in the queue (devflow list shows the tickets)`,
      );
    if (where.state === "processing") {
      await requestCancel(root, id, now);
      const record = await readTicketRecord(root, id);
      if (record) return record;
      throw new DevflowError(
        "TICKET_NOT_FOUND",
        `ticket ${id} is running but has no record; cancel was requested`,
      );
    }
    throw new DevflowError(
      "TICKET_STATE",
      `ticket ${id} already finished (${where.state}/); nothing to cancel`,
    );
  }
  return updateTicketRecord(
    root,
    id,
    () => ({ state: "failed", status: "cancelled", reason: "cancelled by the user" }),
    now,
  );
}

function leaseLost(claim: Claim): DevflowError {
  return new DevflowError(
    "LEASE_LOST",
    `ticket ${claim.id} was taken back from this claim (its lease was recovered as dead or stale); the work of this claim must not be recorded`,
  );
}
