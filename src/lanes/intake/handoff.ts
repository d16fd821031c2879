import { join, relative } from "node:path";
import type { PromotionHandoff } from "../../artifacts/schemas/index.js";
import { ArtifactStore } from "../../artifacts/store.js";
import type { LaneHandoff } from "./state.js";

/** An iterate task's promotion_handoff.json, its path relative to the repo root, and the task's request. */
export async function readHandoff(
  repoRoot: string,
  taskId: string,
): Promise<{ handoff: PromotionHandoff; path: string; request: string | null } | null> {
  const store = ArtifactStore.forTask(repoRoot, taskId);
  const handoff = await store.read("promotion_handoff");
  if (!handoff) return null;
  const task = await store.read("task_artifact");
  return {
    handoff,
    path: relative(repoRoot, store.path("promotion_handoff")),
    request: task?.request ?? null,
  };
}

/**
 * Records which insight/idea record picked the handoff up (`downstream_ref`, a new revision of
 * promotion_handoff.json), so the iterate task points at what came of it.
 */
export async function linkDownstream(
  repoRoot: string,
  handoff: LaneHandoff,
  downstreamId: string,
): Promise<void> {
  const store = ArtifactStore.forTask(repoRoot, handoff.task_id);
  const current = await store.read("promotion_handoff");
  if (!current || current.downstream_ref === downstreamId) return;
  const { revision, ...rest } = current;
  await store.write(
    "promotion_handoff",
    { ...rest, downstream_ref: downstreamId },
    { expectedRevision: revision },
  );
}

/** The task dir of an iterate task, relative to the repo root (for messages). */
export function taskDirLabel(taskId: string): string {
  return join(".devflow", "iterate", taskId);
}
