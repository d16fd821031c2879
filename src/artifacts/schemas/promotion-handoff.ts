import { z } from "zod";
import { Revision, Timestamp } from "./common.js";

/** Written when work leaves the iterate lane; points back to the exact revisions that justified it. */
export const PromotionHandoff = z.object({
  artifact: z.literal("promotion_handoff"),
  task_id: z.string(),
  revision: Revision,
  target_lane: z.enum(["idea", "insight"]),
  reason: z.string().min(1),
  source_refs: z.object({
    task_artifact: z.object({ path: z.string(), revision: Revision }),
    observation_artifact: z.object({ path: z.string(), revision: Revision }).nullable(),
    iterator_run: z.object({ path: z.string(), revision: Revision }),
  }),
  downstream_ref: z.string().nullable().describe("Id of the idea/insight record once that lane picks it up"),
  created_at: Timestamp,
});
export type PromotionHandoff = z.infer<typeof PromotionHandoff>;
