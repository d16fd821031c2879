import { daySpend, localDay, readSpendLedger } from "./spend-ledger.js";

/** What the daily budget says about claiming now. */
export type BudgetCheck =
  | { open: true; reopened: string | null }
  | {
      open: false;
      reason: "budget_exhausted";
      /** One line for the log, naming the limit, the spend and when claiming reopens. */
      message: string;
      /** True the first time a check finds the budget exhausted (report the limit once, when hit). */
      tripped: boolean;
      spentUsd: number;
      capUsd: number;
      /** Local midnight: the latch opens then (or earlier, on a raised cap). */
      until: Date;
    };

export interface BudgetGateOptions {
  root: string;
  /** `worker.dailyBudgetUsd` as the current config says (re-read at every check); undefined = no cap. */
  capUsd: () => number | undefined;
  /** Injectable for tests (a fake clock crosses midnight); default the system clock. */
  now?: () => Date;
}

/**
 * The daily budget (issue 12, ADR 0053), checked by the worker before every claim: when today's
 * known spend (data/spend.json, local calendar day) reaches `worker.dailyBudgetUsd`, claiming
 * latches `budget_exhausted` until local midnight or a raised cap. Running tickets are not stopped
 * (their own `budget_usd` bounds them); unknown-cost sessions do not count toward the cap (they are
 * reported beside it). A config reload calls the same `check()`: the cap is read through `capUsd`.
 */
export class BudgetGate {
  private latched: { day: string; capUsd: number } | null = null;

  constructor(private readonly opts: BudgetGateOptions) {}

  async check(): Promise<BudgetCheck> {
    const now = (this.opts.now ?? (() => new Date()))();
    const cap = this.opts.capUsd();
    const day = localDay(now);
    const wasLatched = this.latched;
    if (cap === undefined) return this.reopen(wasLatched, "worker.dailyBudgetUsd was removed");
    // An unreadable ledger throws: the worker logs it and claims nothing (a cap it cannot check).
    const spent = daySpend(await readSpendLedger(this.opts.root), day);
    if (spent.known_usd < cap) {
      const why =
        wasLatched && wasLatched.day !== day
          ? `a new day (${day}) began`
          : `worker.dailyBudgetUsd is now $${cap} (was $${wasLatched?.capUsd})`;
      return this.reopen(wasLatched, why);
    }
    const tripped = wasLatched === null || wasLatched.day !== day;
    this.latched = { day, capUsd: cap };
    const until = nextLocalMidnight(now);
    const unknown = spent.unknown_sessions
      ? ` (and ${spent.unknown_sessions} session(s) of unknown cost)`
      : "";
    return {
      open: false,
      reason: "budget_exhausted",
      message: `budget_exhausted: today's known spend $${spent.known_usd.toFixed(4)}${unknown} reached worker.dailyBudgetUsd $${cap}; nothing is claimed until local midnight (${until.toString()}) or a raised cap`,
      tripped,
      spentUsd: spent.known_usd,
      capUsd: cap,
      until,
    };
  }

  private reopen(was: { day: string; capUsd: number } | null, why: string): BudgetCheck {
    this.latched = null;
    return { open: true, reopened: was ? `budget reopened: ${why}` : null };
  }
}

function nextLocalMidnight(now: Date): Date {
  const next = new Date(now);
  next.setHours(24, 0, 0, 0);
  return next;
}

/**
 * What the worker calls before each claim: true when the daily budget allows one. The limit is
 * logged once when it is hit, and once when claiming reopens (midnight, a raised cap).
 */
export async function budgetAllowsClaim(gate: BudgetGate, log: (line: string) => void): Promise<boolean> {
  const check = await gate.check();
  if (check.open) {
    if (check.reopened) log(check.reopened);
    return true;
  }
  if (check.tripped) log(check.message);
  return false;
}
