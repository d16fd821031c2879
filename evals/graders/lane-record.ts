import type { ExpectedBehaviour } from "../../scenarios/scenario.js";
import type { Check, ScenarioRun } from "../types.js";
import { gradeAttempts } from "./attempts.js";
import { gradeRunBasics } from "./common.js";
import { gradeAttemptCount, gradeCompletionTruth, gradeTerminal } from "./completion.js";
import { gradeEnvelopes } from "./envelopes.js";
import { gradeHandoff } from "./handoff.js";
import { gradeRevisions } from "./revisions.js";
import type { RunArtifacts } from "./run-artifacts.js";
import { gradeRunStates } from "./supervision.js";

/**
 * What every run of the lane must get right whatever the scenario: it finished, its artifacts
 * validate, revisions only went up, run_state moved as expected and agrees with events.jsonl, the
 * terminal verdict is the expected one, attempt ids and refs are exact, envelopes are normalized,
 * no green claim stands without green evidence, and promotion handoffs are present exactly when due.
 */
export async function gradeLaneRecord(
  a: RunArtifacts,
  run: ScenarioRun,
  e: ExpectedBehaviour,
): Promise<Check[]> {
  return [
    ...gradeRunBasics(a, run),
    ...(await gradeRevisions(a)),
    ...gradeRunStates(a, e.runStates ?? []),
    ...gradeTerminal(a, run, e),
    ...gradeAttemptCount(a, e),
    ...gradeAttempts(a),
    ...gradeEnvelopes(a),
    ...gradeCompletionTruth(a),
    ...(await gradeHandoff(a, e)),
  ];
}
