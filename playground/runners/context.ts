import type { DevflowEvent, LaneOptions, ModelGateway } from "../../src/index.js";

/** What every runner gets: the model gateway of this run, the coder to use and the lane limits. */
export interface RunContext {
  gateway: ModelGateway;
  /** Coder spec for runIterate / resolveCoder (e.g. `command:node "…/trim-email-coder.mjs"`, `junie`). */
  coder: string;
  model: string;
  lane: Partial<LaneOptions>;
  onEvent?: (event: DevflowEvent) => void;
}
