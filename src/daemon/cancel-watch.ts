import type { TicketResult } from "../artifacts/schemas/ticket.js";
import { DevflowError } from "../errors/index.js";
import { readCancelRequest } from "./cancel-request.js";
import { commitBeforeCancel } from "./commit-before-cancel.js";
import { runEndWithoutRun } from "./run-end.js";
import type { Claim } from "./ticket-queue.js";
import type { TicketRequest } from "./ticket-request.js";
import type { RunEnd } from "./worker-types.js";

type Cancelled = NonNullable<TicketResult["cancelled"]>;

/**
 * Watches one claimed ticket for a `devflow cancel` (ADR 0056): `check()` runs at each heartbeat
 * (and once before the run starts); a request found aborts the run like a SIGTERM would, so the
 * lane stops through its abort path (coder and test runs ended, nothing committed after the stop,
 * the worktree and checkpoint kept), and the worker records the ticket cancelled instead of
 * putting it back in the inbox.
 */
export class CancelWatch {
  noticed: Cancelled | null = null;

  constructor(
    private readonly root: string,
    private readonly claim: Claim,
    private readonly controller: AbortController,
  ) {}

  async check(now = new Date()): Promise<void> {
    if (this.noticed) return;
    const request = await readCancelRequest(this.root, this.claim.id);
    if (!request) return;
    this.noticed = { ...request, noticed_at: now.toISOString() };
    this.controller.abort(
      new DevflowError("INTERRUPTED", `cancelled by ${request.by}`, {
        details: { signal: "SIGTERM", taskId: this.claim.id },
      }),
    );
  }

  /**
   * The run's end once cancelled: failed/ with status cancelled, saying by whom and when, and the
   * commit the task had already put on its branch before the cancel was noticed (a daemon that died
   * after the lane's commit), so the record never hides a commit that exists.
   */
  async end(ticket: TicketRequest | null, resumed = false): Promise<RunEnd> {
    const c = this.noticed as Cancelled;
    const committed = await commitBeforeCancel(this.root, this.claim, ticket);
    const kept = committed
      ? `; ${committed.branch} already holds ${committed.commit.slice(0, 12)}, committed before the cancel was noticed (devflow retry ${this.claim.id} resumes the task to its real verdict)`
      : "";
    return runEndWithoutRun({
      status: "cancelled",
      verdict: "cancelled",
      reason: `cancelled by ${c.by} at ${c.requested_at}; the run was stopped at ${c.noticed_at} (its task and worktree are kept: devflow retry ${this.claim.id} resumes it)${kept}`,
      taskId: this.claim.id,
      branch: committed?.branch ?? null,
      commit: committed?.commit ?? null,
      resumed,
      cancelled: c,
    });
  }
}
