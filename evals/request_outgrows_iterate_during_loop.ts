import { grade } from "./grade.js";
import { gradeRevisedLane } from "./graders/profiles.js";
import { loadRunArtifacts } from "./graders/run-artifacts.js";
import { gradeStopsBeforeCoding } from "./graders/supervision.js";
import type { Evaluator } from "./types.js";

/** Grown by the user's answer, the re-framed task is promoted; the handoff cites task r2 and its observation. */
export const evaluate: Evaluator = async (scenario, run) => {
  const a = await loadRunArtifacts(run.taskDir);
  const e = scenario.expected;
  return grade([...(await gradeRevisedLane(a, run, e)), ...gradeStopsBeforeCoding(a)]);
};
