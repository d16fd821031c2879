import { openTaskStore, withTaskLock } from "../../home/index.js";
import type { LaneHandoff } from "./state.js";

/**
 * Records which insight/idea record picked the handoff up (`downstream_ref`, a new revision of
 * promotion_handoff.json), so the iterate task points at what came of it.
 */
export async function linkDownstream(
  repoRoot: string,
  handoff: LaneHandoff,
  downstreamId: string,
): Promise<void> {
  const store = openTaskStore(repoRoot, handoff.task_id);
  // The chat writes into an iterate task's dir here, so it holds the task's lock like a run does.
  await withTaskLock(repoRoot, handoff.task_id, async () => {
    const current = await store.read("promotion_handoff");
    if (!current || current.downstream_ref === downstreamId) return;
    const { revision, ...rest } = current;
    await store.write(
      "promotion_handoff",
      { ...rest, downstream_ref: downstreamId },
      { expectedRevision: revision },
    );
  });
}
