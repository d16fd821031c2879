import { z } from "zod";

/** The Iterator model's one judgement call: what the next attempt needs (agents/iterator). */
export const RepairGuidance = z.object({
  lesson: z.string().min(1),
  respawn_reason: z.string().min(1),
  remaining_steps: z.array(z.string().min(1)).min(1),
  still_viable: z.boolean(),
});
export type RepairGuidance = z.infer<typeof RepairGuidance>;
