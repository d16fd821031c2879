import { coderUnavailableError } from "../coders/contract.js";
import { resolveCoder } from "../coders/index.js";
import { describeError } from "../errors/index.js";
import type { ModelGateway } from "../models/contract.js";

/**
 * Probes the chat's coder once at start. Null when it can run; otherwise the same words the
 * iterate lane fails with (runIterate's probe), so the warning and a later failed turn agree.
 * Never throws: the other lanes work without a coder, so the chat starts either way.
 */
export async function coderWarning(coder: string, gateway: ModelGateway): Promise<string | null> {
  try {
    // The chat hands the builtin coder its own gateway, as the iterate lane does.
    const backend = resolveCoder(coder, { models: gateway });
    const probe = await backend.probe();
    if (probe.installed) return null;
    return describeError(
      coderUnavailableError("CODER_NOT_INSTALLED", `coder "${backend.name}" is not installed`, probe.hint),
    );
  } catch (error) {
    return describeError(error);
  }
}
