import type { SpendTally } from "../artifacts/schemas/spend.js";
import type { NodeReport, ProgressSink } from "../lanes/iterate/lane/reporter.js";
import { bookSpend, readSpendLedger, type SpendSession, ticketSpend } from "./spend-ledger.js";

/**
 * One ticket run's spend (issue 12, ADR 0053): a progress sink for the iterate lane that books every
 * step that spent (one session each) in the spend ledger, and stops the run cleanly once the
 * ticket's known spend (this run and its earlier runs) reaches the ticket's `budget_usd`. The stop is
 * an abort at a step's end: that step is checkpointed, no further step starts (the lane's own stop,
 * ADR 0043), so what the run did so far stays on disk to be salvaged.
 */
export class TicketSpend {
  private readonly budgetStop = new AbortController();
  private pending: Promise<void> = Promise.resolve();
  private bookingError: unknown = null;
  private spentUsd: number;
  /** One line naming the limit and the spend, once the budget stopped the run. */
  stopReason: string | null = null;

  private constructor(
    private readonly root: string,
    private readonly ticketId: string,
    private readonly budgetUsd: number | undefined,
    prior: SpendTally,
    private readonly now: () => Date,
  ) {
    this.spentUsd = prior.known_usd;
    // A ticket resumed or retried after its budget was spent stops before its first step.
    this.checkBudget();
  }

  /** Reads what the ticket already spent (earlier claims, retries) from the ledger. */
  static async open(
    root: string,
    ticketId: string,
    budgetUsd: number | undefined,
    now: () => Date = () => new Date(),
  ): Promise<TicketSpend> {
    const prior = ticketSpend(await readSpendLedger(root), ticketId);
    return new TicketSpend(root, ticketId, budgetUsd, prior, now);
  }

  /** Aborted when the ticket's budget is reached; the lane runs on `AbortSignal.any([stop, this])`. */
  get signal(): AbortSignal {
    return this.budgetStop.signal;
  }

  get stopped(): boolean {
    return this.stopReason !== null;
  }

  /** The lane's progress sink: every step's end (or failure) that spent is one session. */
  readonly sink: ProgressSink = (_event, report) => {
    const session = sessionOf(this.ticketId, report);
    if (session) this.book(session);
  };

  /**
   * Books one session that is no lane step: a read-only ticket's insight run (ADR 0057), whose
   * calls are one session. A run that made no call spent nothing and books nothing.
   */
  bookRun(role: string, spent: { costUsd: number; calls: number; unknownCostCalls: number }): void {
    if (spent.calls === 0 && spent.costUsd === 0) return;
    this.book({
      ticketId: this.ticketId,
      role,
      knownUsd: spent.costUsd,
      costUnknown: spent.unknownCostCalls > 0,
    });
  }

  private book(session: SpendSession): void {
    this.spentUsd += Number.isFinite(session.knownUsd) ? session.knownUsd : 0;
    const at = this.now();
    // Serialised: the ledger sees the sessions in order, and `flush()` waits for all of them.
    this.pending = this.pending
      .then(() => bookSpend(this.root, [session], at))
      .catch((error) => {
        this.bookingError ??= error;
      });
    this.checkBudget();
  }

  /**
   * Waits for every booking. A booking that failed (an unreadable ledger, a full disk) does not
   * undo the run's verdict: it is named in `ledgerProblem`, which the terminal record's reason
   * carries, and the daily budget check, reading the same ledger, then refuses to claim.
   */
  async flush(): Promise<void> {
    await this.pending;
  }

  get ledgerProblem(): string | null {
    return this.bookingError
      ? `the spend ledger missed a session: ${(this.bookingError as Error).message ?? String(this.bookingError)}`
      : null;
  }

  private checkBudget(): void {
    if (this.budgetUsd === undefined || this.stopped || this.spentUsd < this.budgetUsd) return;
    this.stopReason = `budget_usd reached: the ticket's known spend $${this.spentUsd.toFixed(4)} reached its budget_usd $${this.budgetUsd}; the run was stopped after the step that crossed it`;
    this.budgetStop.abort(new Error(this.stopReason));
  }
}

/**
 * A step that spent is a session: any model or coder call booked in it, and always the coder's
 * step (a coder that reported no usage at all is a session of unknown cost, not a free one).
 */
export function sessionOf(ticketId: string, report: NodeReport): SpendSession | null {
  if (report.phase !== "end" && report.phase !== "error") return null;
  const calls = report.calls ?? 0;
  const unknown = report.unknownCostCalls ?? 0;
  const coder = report.node === "code";
  if (!coder && calls === 0 && report.costUsd === 0) return null;
  return {
    ticketId,
    role: report.node,
    knownUsd: report.costUsd,
    costUnknown: unknown > 0 || (coder && calls === 0),
  };
}

/** The terminal record's spend fields: the ticket's spend over all its runs, and its budget. */
export async function ticketCostFields(
  root: string,
  ticketId: string,
  budgetUsd: number | undefined,
): Promise<{ cost_usd?: SpendTally; budget_usd: number | null }> {
  const budget_usd = budgetUsd ?? null;
  try {
    return { cost_usd: ticketSpend(await readSpendLedger(root), ticketId), budget_usd };
  } catch {
    // An unreadable ledger must not keep the ticket from its terminal record: the cost is left
    // out (absent, not 0), and the daily budget check names the ledger's problem.
    return { budget_usd };
  }
}
