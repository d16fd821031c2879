import { join } from "node:path";
import type { DaemonConfig } from "../artifacts/schemas/ticket.js";
import { cacheDir } from "../home/daemon-paths.js";
import type { LaneOptions } from "../lanes/iterate/lane/deps.js";
import { type ChangeDefaults, runChangeTicket } from "./run-change.js";
import type { RunEnd, TicketRunner } from "./worker-types.js";

/**
 * Runs a claimed ticket by its kind. Only the change flow (`repo:`) runs today; an audit, an
 * investigation or a question ends `failed` with verdict `unsupported` and says so, rather than
 * pretending (issue 12 leaves them for a later slice).
 */
export function ticketRunner(root: string, defaults: ChangeDefaults): TicketRunner {
  const clones = join(cacheDir(root), "clones");
  return async (run, ticket): Promise<RunEnd> => {
    if (ticket.kind === "change") return runChangeTicket(run, ticket, defaults, clones, root);
    return {
      status: "failed",
      verdict: "unsupported",
      reason: `${ticket.kind} tickets are not supported by the daemon yet (only repo: change tickets run); nothing was run`,
      taskId: null,
      branch: null,
      commit: null,
      attempts: 0,
      artifactDir: null,
      resumed: false,
    };
  };
}

/** The lane's bounds on a ticket's `## Verification` blocks, from the daemon's config (ADR 0056). */
export function verificationLimits(
  config: DaemonConfig,
): Pick<LaneOptions, "maxExtraVerifiers" | "extraVerifierTimeoutMs"> {
  return {
    maxExtraVerifiers: config.worker.maxVerificationBlocks,
    extraVerifierTimeoutMs: config.worker.verificationTimeoutSeconds * 1000,
  };
}
