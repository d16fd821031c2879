import type { Usage } from "../../artifacts/schemas/index.js";
import type { ModelGateway } from "../../models/contract.js";
import type { CoderUsage } from "../contract.js";

/**
 * The coder's usage for one run, from the gateway's ledger: what role "coder" booked during the
 * run (the same gateway may serve earlier attempts). Cost is null when the coder's model has no
 * known price (a local model, say), rather than a misleading 0.
 */
export function coderUsageSince(gateway: ModelGateway, before: Usage | undefined): CoderUsage {
  const snapshot = gateway.usage();
  const after = snapshot.by_role.coder;
  const input = (after?.input_tokens ?? 0) - (before?.input_tokens ?? 0);
  const output = (after?.output_tokens ?? 0) - (before?.output_tokens ?? 0);
  const cost = (after?.cost_usd ?? 0) - (before?.cost_usd ?? 0);
  const priced = !snapshot.unpriced_models.includes(gateway.modelName("coder"));
  return { input_tokens: input, output_tokens: output, cost_usd: priced ? cost : null };
}
