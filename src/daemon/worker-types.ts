import type {
  PartialWork,
  TicketResult,
  TicketResultStatus,
  VerificationBlockResult,
} from "../artifacts/schemas/ticket.js";
import type { Claim } from "./ticket-queue.js";
import type { TicketRequest } from "./ticket-request.js";

/** One claimed ticket handed to a runner, with the signal that stops it resumably. */
export interface TicketRun {
  claim: Claim;
  signal: AbortSignal;
}

/** How a run ended when it ended (a thrown error is classified by the worker instead). */
export interface RunEnd {
  /**
   * `aborted_partial` / `timeout_partial`: the run did not finish, its verified work was salvaged
   * (ADR 0053); `cancelled`: `devflow cancel` stopped it (ADR 0056).
   */
  status: TicketResultStatus;
  /** The lane's verdict, or the daemon's (`unsupported`, `error`). */
  verdict: string;
  reason: string;
  taskId: string | null;
  branch: string | null;
  commit: string | null;
  attempts: number;
  artifactDir: string | null;
  resumed: boolean;
  /** The salvaged, verified attempt of a partial end. */
  partial?: PartialWork | null;
  /** What each `## Verification` block came to (ADR 0056); absent: none ran (`not_run`). */
  verification?: VerificationBlockResult[];
  /** audit / investigate / question: the path of its ticket_answer.json (ADR 0057). */
  answer?: string | null;
  /** Set when `devflow cancel` stopped the run. */
  cancelled?: TicketResult["cancelled"];
}

/** Runs one claimed ticket to its end; throws on a failure (the worker decides: requeue or failed/). */
export type TicketRunner = (run: TicketRun, ticket: TicketRequest) => Promise<RunEnd>;
