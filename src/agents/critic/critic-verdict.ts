import { z } from "zod";

export const CriterionVerdict = z.object({
  criterion: z.string().describe("The success criterion, copied exactly as written in the task"),
  verdict: z.enum(["met", "unmet", "unclear"]),
  reason: z.string().describe("One or two sentences pointing at the evidence (file, hunk, seam output)"),
});
export type CriterionVerdict = z.infer<typeof CriterionVerdict>;

/** What the critic model returns for one attempt (agents/critic/contract.md). */
export const CriticVerdict = z.object({
  criteria: z.array(CriterionVerdict).describe("One entry per success criterion, in the task's order"),
  blockers: z.array(z.string()).describe("Problems that make a completion claim false; empty when none"),
  plan_invalid: z.boolean().describe("True only when the task's own assumptions are shown to be wrong"),
  summary: z.string().describe("Two or three sentences a developer can act on"),
});
export type CriticVerdict = z.infer<typeof CriticVerdict>;
