import type { ExpectedBehaviour } from "../../scenarios/scenario.js";
import { check, checkProblems } from "../grade.js";
import type { Check } from "../types.js";
import type { RunArtifacts } from "./run-artifacts.js";

/**
 * Promotion linkage: when work leaves the lane, promotion_handoff.json exists, names the target
 * lane, and its source refs point at task, observation and iterator_run revisions that exist, are
 * the ones readiness cited, and whose run record holds the matching terminal verdict. When the
 * scenario expects no exit, there must be no handoff.
 */
export async function gradeHandoff(a: RunArtifacts, e: ExpectedBehaviour): Promise<Check[]> {
  const handoff = a.handoff;
  if (!e.handoffTarget) {
    return [
      check("no_handoff", handoff === null, `unexpected promotion_handoff.json → ${handoff?.target_lane}`),
    ];
  }
  if (!handoff || !a.store)
    return [check("promotion_handoff_linked", false, "promotion_handoff.json is missing")];
  const refs = handoff.source_refs;
  const cites = a.run?.readiness?.cites;
  const task = await a.store.readRevision("task_artifact", refs.task_artifact.revision).catch(() => null);
  const observation = refs.observation_artifact
    ? await a.store.readRevision("observation_artifact", refs.observation_artifact.revision).catch(() => null)
    : null;
  const run = await a.store.readRevision("iterator_run", refs.iterator_run.revision).catch(() => null);
  const verdict = e.handoffTarget === "idea" ? "promoted" : "rerouted";
  return [
    checkProblems("promotion_handoff_linked", [
      handoff.target_lane !== e.handoffTarget &&
        `target_lane is ${handoff.target_lane}, expected ${e.handoffTarget}`,
      !task && `task_artifact r${refs.task_artifact.revision} does not exist`,
      !observation && "the handoff does not point at an existing observation revision",
      cites &&
        refs.task_artifact.revision !== cites.task_artifact_revision &&
        `handoff cites task r${refs.task_artifact.revision}, readiness relied on r${cites.task_artifact_revision}`,
      cites &&
        refs.observation_artifact &&
        refs.observation_artifact.revision !== cites.observation_artifact_revision &&
        `handoff cites observation r${refs.observation_artifact.revision}, readiness relied on r${cites.observation_artifact_revision}`,
      run?.terminal?.verdict !== verdict &&
        `iterator_run r${refs.iterator_run.revision} ${run ? `has terminal ${run.terminal?.verdict ?? "none"}` : "does not exist"}, expected ${verdict}`,
      a.run?.run_state !== verdict && `run_state is ${a.run?.run_state}, expected ${verdict}`,
      handoff.reason.trim().length === 0 && "the handoff gives no reason",
    ]),
  ];
}
