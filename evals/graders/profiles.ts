import { existsSync, readdirSync } from "node:fs";
import { dirname } from "node:path";
import type { ExpectedBehaviour } from "../../scenarios/scenario.js";
import type { Check, ScenarioRun } from "../types.js";
import { gradeAttempts } from "./attempts.js";
import {
  gradeCoderHonesty,
  gradeCoderReports,
  gradeImplementsFix,
  gradeNarrowVerification,
} from "./coder-report.js";
import { gradeNodesRan, gradeRunBasics } from "./common.js";
import { gradeCompletionTruth } from "./completion.js";
import { gradeEnvelopes } from "./envelopes.js";
import { gradeLaneRecord } from "./lane-record.js";
import { gradeObservation, gradeSeamRedOnBase, type ObservationGradeOptions } from "./observation.js";
import { gradeRevisions } from "./revisions.js";
import type { RunArtifacts } from "./run-artifacts.js";
import { gradeScope } from "./scope.js";
import { gradeReadiness, gradeStopsBeforeCoding } from "./supervision.js";
import { gradeTaskArtifact, gradeTaskRevised } from "./task-artifact.js";

/**
 * The shared grading of each kind of run; evaluators add what their scenario is specifically about.
 */

/** The frame node alone: it ran and went on to observe, and its task artifact is complete. */
export async function gradeFramerRun(
  a: RunArtifacts,
  run: ScenarioRun,
  e: ExpectedBehaviour,
): Promise<Check[]> {
  return [
    ...gradeRunBasics(a, run),
    ...gradeNodesRan(run, [{ node: "frame", goto: "observe" }]),
    ...(await gradeRevisions(a)),
    ...gradeTaskArtifact(a, e),
  ];
}

/** The observe node alone: it ran, its observation is honest, and devflow saw its seam red on base. */
export function gradeObserverRun(
  a: RunArtifacts,
  run: ScenarioRun,
  e: ExpectedBehaviour,
  opts: Omit<ObservationGradeOptions, "worktree"> = {},
): Check[] {
  return [
    ...gradeRunBasics(a, run),
    ...gradeNodesRan(run, [{ node: "observe", goto: null }]),
    ...gradeObservation(a, e, { worktree: run.worktree, ...opts }),
    ...gradeSeamRedOnBase(a),
  ];
}

/**
 * One coder run with its verifiers and the completion gate: the nodes went readiness → code →
 * verify → gate → commit, the report is complete and honest, the fix passed narrowly and in scope.
 */
export function gradeCoderRun(a: RunArtifacts, run: ScenarioRun, e: ExpectedBehaviour): Check[] {
  return [
    ...gradeRunBasics(a, run),
    ...gradeNodesRan(run, [
      { node: "readiness", goto: "code" },
      { node: "code", goto: "verify" },
      { node: "verify", goto: "gate" },
      { node: "gate", goto: "commit" },
    ]),
    ...gradeCoderReports(a),
    ...gradeImplementsFix(a),
    ...gradeScope(a, e),
    ...gradeNarrowVerification(a),
    ...gradeCoderHonesty(a),
    ...gradeAttempts(a),
    ...gradeEnvelopes(a),
    ...gradeCompletionTruth(a),
  ];
}

/** A lane run that must end before any coding (handoff, blocked, needs more context). */
export async function gradeStoppedLane(
  a: RunArtifacts,
  run: ScenarioRun,
  e: ExpectedBehaviour,
): Promise<Check[]> {
  return [
    ...(await gradeLaneRecord(a, run, e)),
    ...gradeObservation(a, e, { worktree: run.worktree }),
    ...(await gradeReadiness(a)),
    ...gradeStopsBeforeCoding(a),
  ];
}

/** A lane run that reached the coder after the truth was established: the seam and the readiness behind it. */
export async function gradeObservedLane(
  a: RunArtifacts,
  run: ScenarioRun,
  e: ExpectedBehaviour,
  opts: Omit<ObservationGradeOptions, "worktree"> = {},
): Promise<Check[]> {
  return [
    ...(await gradeLaneRecord(a, run, e)),
    ...gradeObservation(a, e, { worktree: run.worktree, ...opts }),
    ...gradeSeamRedOnBase(a),
    ...(await gradeReadiness(a)),
  ];
}

/**
 * A lane run whose task was re-framed before anything was coded: the lane record, the task amended
 * in place (task roots read from the run's .devflow/iterate) and readiness citing the new revision.
 */
export async function gradeRevisedLane(
  a: RunArtifacts,
  run: ScenarioRun,
  e: ExpectedBehaviour,
): Promise<Check[]> {
  const parent = run.taskDir ? dirname(run.taskDir) : null;
  return [
    ...(await gradeLaneRecord(a, run, e)),
    ...(await gradeTaskRevised(a, e, parent && existsSync(parent) ? readdirSync(parent) : [])),
    ...(await gradeReadiness(a)),
  ];
}
