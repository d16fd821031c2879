import { nowIso } from "../../../util/time.js";
import type { NodeBody } from "../lane/define-node.js";
import { terminate } from "../lane/run-record.js";

/**
 * The lane exits to idea (promotion) or insight (reroute): the durable record is
 * promotion_handoff.json pointing at the exact revisions that justified it.
 */
export const handoff: NodeBody = async (state, deps) => {
  const task = await deps.store.read("task_artifact");
  const observation = await deps.store.read("observation_artifact");
  const run = await deps.store.read("iterator_run");
  if (!task || !run) throw new Error("handoff: task_artifact or iterator_run is missing");
  const target = observation?.verdict === "reroute_insight" ? "insight" : "idea";
  const reason =
    target === "insight"
      ? `the request asks for explanation, not a change: ${observation?.summary ?? ""}`
      : `the request outgrows the iterate lane: ${observation?.summary ?? ""}`;
  const previous = await deps.store.read("promotion_handoff");
  const written = await deps.store.write(
    "promotion_handoff",
    {
      artifact: "promotion_handoff",
      task_id: state.taskId,
      target_lane: target,
      reason,
      source_refs: {
        task_artifact: { path: "task_artifact.json", revision: task.revision },
        observation_artifact: observation
          ? { path: "observation_artifact.json", revision: observation.revision }
          : null,
        // The run record's next revision is the one terminate() writes below, which records this handoff.
        iterator_run: { path: "iterator_run.json", revision: run.revision + 1 },
      },
      downstream_ref: null,
      created_at: nowIso(),
    },
    { expectedRevision: previous?.revision ?? 0 },
  );
  const verdict = target === "insight" ? "rerouted" : "promoted";
  await terminate(deps.store, deps.gateway, { verdict, reason, branch: state.branch });
  return { line: `promotion_handoff r${written.revision} → ${target}`, runState: verdict };
};
