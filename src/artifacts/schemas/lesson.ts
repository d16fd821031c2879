import { z } from "zod";
import { AttemptId, Timestamp } from "./common.js";

/** One line of lessons.jsonl: what a failed attempt taught, carried into the next prompt. */
export const Lesson = z.object({
  attempt_id: AttemptId,
  lesson: z.string().min(1),
  failed_verifiers: z.array(z.string()),
  at: Timestamp,
});
export type Lesson = z.infer<typeof Lesson>;
