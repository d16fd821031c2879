import { z } from "zod";
import { Timestamp } from "./common.js";

/** One line of events.jsonl: every graph node start/end with its outcome, duration, tokens and cost. */
export const DevflowEvent = z.object({
  ts: Timestamp,
  task_id: z.string(),
  node: z.string(),
  phase: z.enum(["start", "end", "error", "info"]),
  outcome: z.string().nullable(),
  duration_ms: z.number().min(0).nullable(),
  run_state: z.string().nullable(),
  attempt_id: z.string().nullable(),
  tokens: z.number().int().min(0),
  cost_usd: z.number().min(0),
  detail: z.record(z.string(), z.unknown()),
});
export type DevflowEvent = z.infer<typeof DevflowEvent>;
