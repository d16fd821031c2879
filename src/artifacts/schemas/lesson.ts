import { z } from "zod";
import { AttemptId, Timestamp } from "./common.js";

/** One line of lessons.jsonl: what a failed attempt taught, carried into the next prompt. */
export const Lesson = z.object({
  attempt_id: AttemptId,
  lesson: z.string().min(1),
  failed_verifiers: z.array(z.string()),
  /**
   * Who wrote it: `repair` (the Iterator's lesson after a failed gate, one per attempt), `salvage`
   * (a timed-out run's failed change) or `exhausted` (the last attempt). A node re-run after a
   * crash checks this key before appending again (ADR 0033). Absent in older logs.
   */
  source: z.enum(["repair", "salvage", "exhausted"]).optional(),
  at: Timestamp,
});
export type Lesson = z.infer<typeof Lesson>;
