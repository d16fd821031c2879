import type { CoderRunResult } from "../../../coders/contract.js";
import { DevflowError } from "../../../errors/index.js";

type ProviderStop = Extract<CoderRunResult, { status: "auth" | "rate_limit" }>;

/**
 * A coder stopped by its provider (auth, rate limit) in a run for the daemon
 * (`LaneOptions.leaveProviderStopsOpen`, ADR 0052 amendment s16/provfault): thrown instead of ending
 * the task `blocked`, so the checkpoint stays before the code node and the ticket, requeued by the
 * daemon's provider gate, resumes the same judge attempt: no attempt is spent, nothing is judged or
 * committed. Null for any other result, and always null without the option (`devflow iterate` and
 * chat keep the terminal `blocked`: a person is there to read it).
 */
export function providerStopError(
  result: CoderRunResult,
  coder: string,
  attemptId: string,
  leaveOpen: boolean | undefined,
): DevflowError<"CODER_PROVIDER_STOPPED"> | null {
  if (!leaveOpen || !isProviderStop(result)) return null;
  const said = (result.error || result.finalMessage || "").split("\n")[0] ?? "";
  return new DevflowError(
    "CODER_PROVIDER_STOPPED",
    `coder ${coder} stopped with ${result.status} in ${attemptId}: ${said}; the attempt is left open to resume`,
    { details: { status: result.status, coder, said } },
  );
}

const isProviderStop = (r: CoderRunResult): r is ProviderStop =>
  r.status === "auth" || r.status === "rate_limit";
