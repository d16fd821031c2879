import { mkdir, readFile } from "node:fs/promises";
import lockfile from "proper-lockfile";
import { type DaySpend, emptySpendTally, SpendLedger, type SpendTally } from "../artifacts/schemas/spend.js";
import { DevflowError } from "../errors/index.js";
import { dataDir, spendLedgerLockPath, spendLedgerPath } from "../home/daemon-paths.js";
import { writeFileDurably } from "../util/durable-write.js";

/**
 * The spend ledger, `<data root>/data/spend.json` (issue 12, ADR 0053): what each session of each
 * ticket run cost, per local calendar day and per ticket. Every update is read-modify-write under
 * `data/spend.lock` and lands by temp file + rename: two processes booking at once both count, and
 * a reader (a budget check, `/health`) never sees half a file.
 */

/**
 * One session of a ticket run (a lane step that spent: frame, observe, code, verify, repair): the
 * part of its cost that is known, and whether some of it is not (an unpriced model, a coder that
 * reported no cost). Such a session counts in `unknown_sessions`; its known part still counts.
 */
export interface SpendSession {
  ticketId: string;
  role: string;
  knownUsd: number;
  costUnknown: boolean;
}

/** A lock older than this belongs to a crashed booker and is taken over (a booking takes ms). */
const LOCK_STALE_MS = 10_000;

/** `YYYY-MM-DD` in the process's local time zone: the daily budget's day ends at local midnight. */
export function localDay(at: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`;
}

/** The ledger as it is on disk; an absent file is an empty ledger. */
export async function readSpendLedger(root: string): Promise<SpendLedger> {
  const path = spendLedgerPath(root);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT")
      return { version: 1, updated_at: new Date(0).toISOString(), days: {} };
    throw invalid(path, (error as Error).message, error);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw invalid(path, `not JSON: ${(error as Error).message}`, error);
  }
  const parsed = SpendLedger.safeParse(value);
  if (!parsed.success)
    throw invalid(
      path,
      parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; "),
    );
  return parsed.data;
}

/** Adds sessions to the ledger on `at`'s local day, atomically with respect to other processes. */
export async function bookSpend(root: string, sessions: readonly SpendSession[], at: Date): Promise<void> {
  if (sessions.length === 0) return;
  await mkdir(dataDir(root), { recursive: true });
  const release = await lockfile.lock(spendLedgerPath(root), {
    lockfilePath: spendLedgerLockPath(root),
    realpath: false,
    stale: LOCK_STALE_MS,
    // Bookings are short: wait for the other process instead of failing.
    retries: { retries: 200, factor: 1.2, minTimeout: 5, maxTimeout: 100, randomize: true },
    onCompromised: () => undefined,
  });
  try {
    const ledger = await readSpendLedger(root);
    const day = localDay(at);
    const today: DaySpend = ledger.days[day] ?? { ...emptySpendTally(), tickets: {} };
    for (const s of sessions) {
      const ticket = today.tickets[s.ticketId] ?? { ...emptySpendTally(), by_role: {} };
      const role = ticket.by_role[s.role] ?? emptySpendTally();
      for (const tally of [today, ticket, role]) add(tally, s);
      ticket.by_role[s.role] = role;
      today.tickets[s.ticketId] = ticket;
    }
    ledger.days[day] = today;
    ledger.updated_at = at.toISOString();
    await writeFileDurably(spendLedgerPath(root), `${JSON.stringify(SpendLedger.parse(ledger), null, 2)}\n`);
  } finally {
    await release();
  }
}

/** The known part adds to the sum; an unknown part, or a known part that is no number, is one unknown session. */
function add(tally: SpendTally, s: SpendSession): void {
  tally.sessions += 1;
  const known = Number.isFinite(s.knownUsd) && s.knownUsd >= 0;
  if (known) tally.known_usd += s.knownUsd;
  if (s.costUnknown || !known) tally.unknown_sessions += 1;
}

/** Everything spent on `day` (all tickets). */
export function daySpend(ledger: SpendLedger, day: string): SpendTally {
  const d = ledger.days[day];
  return d
    ? { known_usd: d.known_usd, unknown_sessions: d.unknown_sessions, sessions: d.sessions }
    : emptySpendTally();
}

/** One ticket's spend over every day it ran (a resumed or retried ticket spends over several). */
export function ticketSpend(ledger: SpendLedger, ticketId: string): SpendTally {
  const total = emptySpendTally();
  for (const day of Object.values(ledger.days)) {
    const t = day.tickets[ticketId];
    if (!t) continue;
    total.known_usd += t.known_usd;
    total.unknown_sessions += t.unknown_sessions;
    total.sessions += t.sessions;
  }
  return total;
}

function invalid(path: string, why: string, cause?: unknown): DevflowError {
  return new DevflowError(
    "SPEND_LEDGER_INVALID",
    `the spend ledger ${path} is unreadable (${why}): move it aside to start a new one; budgets stay closed until then`,
    { cause },
  );
}
