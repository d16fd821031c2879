import { z } from "zod";
import { Timestamp } from "./common.js";

/**
 * What some sessions of ticket runs cost (issue 12, ADR 0053). A session is one step of a run that
 * spends: the framer, the observer, the critic (verify), repair guidance, the coder. `known_usd`
 * sums only the sessions whose cost is known; a session whose cost is not (a model missing from the
 * price table, a coder that reports no cost) counts in `unknown_sessions` and adds nothing to the
 * sum: unknown is never 0, and never poisons the known sum.
 */
export const SpendTally = z.strictObject({
  known_usd: z.number().min(0).describe("sum of the sessions whose cost is known, in USD"),
  unknown_sessions: z
    .number()
    .int()
    .min(0)
    .describe("sessions whose cost is unknown (not counted in known_usd, and not 0)"),
  sessions: z.number().int().min(0).describe("every session tallied, known or not"),
});
export type SpendTally = z.infer<typeof SpendTally>;

export const emptySpendTally = (): SpendTally => ({ known_usd: 0, unknown_sessions: 0, sessions: 0 });

/** One ticket's spend on one day, with the same tally per session role (framer, code, verify, …). */
export const TicketDaySpend = SpendTally.extend({
  by_role: z.record(z.string(), SpendTally),
});
export type TicketDaySpend = z.infer<typeof TicketDaySpend>;

/** One local calendar day: its total and each ticket's part. */
export const DaySpend = SpendTally.extend({
  tickets: z.record(z.string(), TicketDaySpend),
});
export type DaySpend = z.infer<typeof DaySpend>;

/** `YYYY-MM-DD` of the daemon's local time zone: the daily budget resets at local midnight. */
export const LocalDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

/**
 * The spend ledger, `<data root>/data/spend.json`: per local calendar day and per ticket. Written by
 * one process at a time (a lock) with temp file + rename, so a reader never sees half a ledger and
 * two daemons or a daemon and a command never lose each other's update.
 */
export const SpendLedger = z.strictObject({
  version: z.literal(1),
  updated_at: Timestamp,
  days: z.record(LocalDay, DaySpend),
});
export type SpendLedger = z.infer<typeof SpendLedger>;
