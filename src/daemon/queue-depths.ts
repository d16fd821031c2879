import { readdir } from "node:fs/promises";
import { QUEUE_STATES, type QueueState, queueDir } from "../home/daemon-paths.js";

export type QueueDepths = Record<QueueState, number>;

/**
 * Tickets per queue folder, by their `.md` files (one readdir each: cheap enough for every
 * /health and /metrics request). processing/ counts claims only: leases and repository claims
 * are not `.md`.
 */
export async function queueDepths(root: string): Promise<QueueDepths> {
  const depths = {} as QueueDepths;
  for (const state of QUEUE_STATES) {
    const names = await readdir(queueDir(root, state)).catch(() => [] as string[]);
    depths[state] = names.filter((name) => name.endsWith(".md")).length;
  }
  return depths;
}
