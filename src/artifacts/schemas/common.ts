import { z } from "zod";

/** ISO-8601 timestamp written by devflow (never by a model). */
export const Timestamp = z.string().describe("ISO-8601 timestamp");

/** Every top-level artifact carries a revision that only goes up (1, 2, ...). */
export const Revision = z.number().int().min(1);

/** A reference to a file or artifact that backs a claim, relative to the task's artifact dir or the worktree. */
export const EvidenceRef = z.object({
  kind: z.enum(["artifact", "file", "command", "log", "url"]),
  ref: z.string().min(1),
  note: z.string().optional(),
});
export type EvidenceRef = z.infer<typeof EvidenceRef>;

export const Usage = z.object({
  input_tokens: z.number().int().min(0),
  output_tokens: z.number().int().min(0),
  total_tokens: z.number().int().min(0),
  cost_usd: z.number().min(0),
  calls: z.number().int().min(0),
});
export type Usage = z.infer<typeof Usage>;

export const emptyUsage = (): Usage => ({
  input_tokens: 0,
  output_tokens: 0,
  total_tokens: 0,
  cost_usd: 0,
  calls: 0,
});

export const ATTEMPT_ID = /^attempt-\d{3,}$/;
export const AttemptId = z.string().regex(ATTEMPT_ID);

export function attemptId(n: number): string {
  return `attempt-${String(n).padStart(3, "0")}`;
}
