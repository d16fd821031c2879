import { join } from "node:path";
import type { DaemonConfig } from "../artifacts/schemas/ticket.js";
import { cacheDir } from "../home/daemon-paths.js";
import type { InsightTicketSettings } from "../lanes/insight/ticket.js";
import type { LaneOptions } from "../lanes/iterate/lane/deps.js";
import { type ChangeDefaults, runChangeTicket } from "./run-change.js";
import { runReadOnlyTicket } from "./run-read-only.js";
import type { RunEnd, TicketRunner } from "./worker-types.js";

/**
 * Runs a claimed ticket by its kind: a `repo:` change on the iterate lane; an audit, an
 * investigation or a question read-only on the insight lane, its answer stored in the data root
 * (ADR 0057).
 */
export function ticketRunner(root: string, defaults: ChangeDefaults): TicketRunner {
  const clones = join(cacheDir(root), "clones");
  return async (run, ticket): Promise<RunEnd> => {
    if (ticket.kind === "change") return runChangeTicket(run, ticket, defaults, clones, root);
    return runReadOnlyTicket(run, ticket, insightSettings(defaults), root);
  };
}

/** The model settings of the change flow, for the insight lane (same model, mode, cassette, limits). */
function insightSettings(defaults: ChangeDefaults): InsightTicketSettings {
  return {
    mode: defaults.mode,
    model: defaults.model,
    ...(defaults.cassettePath ? { cassettePath: defaults.cassettePath } : {}),
    ...(defaults.env ? { env: defaults.env } : {}),
    ...(defaults.modelLimits ? { modelLimits: defaults.modelLimits } : {}),
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
