import { isDeepStrictEqual } from "node:util";
import type { PromotionHandoff } from "../../../artifacts/schemas/index.js";
import { killPoint } from "../../../util/test-kill-point.js";
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
  const verdict = target === "insight" ? "rerouted" : "promoted";
  // The run record that holds this handoff's verdict: the next revision, which terminate() writes
  // below, or (a re-run after a crash that came after terminate) the one that already holds it.
  const recorded = run.terminal?.verdict === verdict && run.terminal.reason === reason;
  const handoff: Omit<PromotionHandoff, "revision" | "created_at"> = {
    artifact: "promotion_handoff",
    task_id: state.taskId,
    target_lane: target,
    reason,
    source_refs: {
      task_artifact: { path: "task_artifact.json", revision: task.revision },
      observation_artifact: observation
        ? { path: "observation_artifact.json", revision: observation.revision }
        : null,
      iterator_run: { path: "iterator_run.json", revision: recorded ? run.revision : run.revision + 1 },
    },
    downstream_ref: null,
  };
  // A re-run after a crash that came after the write finds the same handoff: it stands (r1 stays r1).
  const previous = await deps.store.read("promotion_handoff");
  const written =
    previous && sameHandoff(previous, handoff)
      ? previous
      : await deps.store.write(
          "promotion_handoff",
          { ...handoff, created_at: nowIso() },
          { expectedRevision: previous?.revision ?? 0 },
        );
  killPoint("handoff.written");
  await terminate(deps.store, deps.gateway, { verdict, reason, branch: state.branch });
  return { line: `promotion_handoff r${written.revision} → ${target}`, runState: verdict };
};

/** Everything of a handoff but when it was written and its revision. */
function sameHandoff(
  previous: PromotionHandoff,
  next: Omit<PromotionHandoff, "revision" | "created_at">,
): boolean {
  const { revision: _r, created_at: _c, ...stored } = previous;
  return isDeepStrictEqual(stored, next);
}
