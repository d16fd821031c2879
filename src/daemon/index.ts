export { readDaemonConfig } from "./daemon-config.js";
export { type DataTree, readDataTree, renderDataTree } from "./data-tree.js";
export { FsTicketQueue } from "./fs-queue.js";
export type { LintContext, LintedTicket } from "./plan-lint.js";
export type {
  Claim,
  ClaimOptions,
  FinishOutcome,
  QueueEntry,
  Recovered,
  SubmitResult,
  TicketQueue,
} from "./ticket-queue.js";
export type { FencedBlock } from "./verification-blocks.js";

import { dataRoot } from "../home/daemon-paths.js";
import { readDaemonConfig } from "./daemon-config.js";
import { FsTicketQueue } from "./fs-queue.js";

/** The queue of the data root `env` names (DEVFLOW_HOME or ~/.devflow), with its config read. */
export async function openQueue(env: NodeJS.ProcessEnv = process.env): Promise<FsTicketQueue> {
  const root = dataRoot(env);
  return new FsTicketQueue(root, await readDaemonConfig(root));
}
