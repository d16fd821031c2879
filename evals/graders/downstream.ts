import { existsSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import type { ExpectedBehaviour } from "../../scenarios/scenario.js";
import { parseArtifact } from "../../src/index.js";
import { checkProblems, type Problem } from "../grade.js";
import type { Check, ScenarioRun } from "../types.js";
import type { RunArtifacts } from "./run-artifacts.js";

/** The record each target lane leaves under `.devflow/<lane>/<id>/`. */
const RECORD_FILE = { insight: "insight_answer", idea: "idea_brief" } as const;

/**
 * The handoff was picked up in the same conversation: promotion_handoff.json's `downstream_ref`
 * names a record of the target lane that exists, validates (ajv, then zod), and whose
 * `source_handoff` points back at this task's handoff. Graded only when a handoff is expected.
 */
export function gradeDownstreamRecord(run: ScenarioRun, a: RunArtifacts, e: ExpectedBehaviour): Check[] {
  const target = e.handoffTarget;
  if (!target) return [];
  return [checkProblems("downstream_record_linked", downstreamProblems(run, a, target))];
}

function downstreamProblems(run: ScenarioRun, a: RunArtifacts, target: "insight" | "idea"): Problem[] {
  if (!run.repo || !a.dir) return ["the run left no iterate task to hand over from"];
  const ref = a.handoff?.downstream_ref ?? null;
  if (!a.handoff) return ["promotion_handoff.json is missing"];
  if (!ref) return [`promotion_handoff.json has no downstream_ref: the ${target} lane never picked it up`];
  const name = RECORD_FILE[target];
  // The documented on-disk layout (README "Files a run writes"), spelled out on purpose: the
  // grader checks the contract itself instead of asking devflow where it put things.
  const relPath = join(".devflow", target, ref, `${name}.json`);
  const file = join(run.repo, relPath);
  if (!existsSync(file)) return [`downstream_ref ${ref} names ${relPath}, which does not exist`];
  let record: { id: string; source_handoff: { task_id: string; path: string } | null };
  try {
    record = parseArtifact(name, JSON.parse(readFileSync(file, "utf8")));
  } catch (error) {
    return [`${relPath}: ${error instanceof Error ? error.message : String(error)}`];
  }
  const taskId = basename(a.dir);
  const handoffPath = join(".devflow", "iterate", taskId, "promotion_handoff.json");
  const source = record.source_handoff;
  return [
    record.id !== ref && `${relPath} has id ${record.id}, downstream_ref says ${ref}`,
    (source?.task_id !== taskId || source.path !== handoffPath) &&
      `${relPath} source_handoff is ${JSON.stringify(source)}, expected ${taskId} / ${handoffPath}`,
  ];
}
