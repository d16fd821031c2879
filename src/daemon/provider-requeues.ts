import { type DevflowError, findCause, isDevflowError } from "../errors/index.js";
import type { Claim } from "./ticket-queue.js";

/** The coder's provider stop the lane threw (CODER_PROVIDER_STOPPED), anywhere in the cause chain. */
export function coderProviderStop(error: unknown): DevflowError<"CODER_PROVIDER_STOPPED"> | undefined {
  return findCause(error, (e): e is DevflowError<"CODER_PROVIDER_STOPPED"> =>
    isDevflowError(e, "CODER_PROVIDER_STOPPED"),
  );
}

export type ProviderRequeue = { requeue: true; count: number } | { requeue: false; reason: string };

/**
 * Whether a ticket whose coder stopped on its provider may go back to the inbox once more (ADR 0052
 * amendment s16/provfault). Several backends read `auth`/`rate_limit` from the CLI's error text, which
 * a prompt-injected model can make it print; with the retry counter untouched such a ticket would be
 * requeued forever, holding the gate closed for every other ticket. `worker.maxProviderRequeues`
 * bounds it; past it the ticket is finalized `blocked`, the reason naming the limit.
 */
export function providerRequeue(claim: Claim, max: number, said: string): ProviderRequeue {
  const count = (claim.record.provider_requeues ?? 0) + 1;
  if (count <= max) return { requeue: true, count };
  return {
    requeue: false,
    reason: `${said} (requeued ${max} time(s) for a provider stop of its coder: worker.maxProviderRequeues ${max} reached)`,
  };
}
