import { grade } from "./grade.js";
import { gradeStoppedLane } from "./graders/profiles.js";
import { loadRunArtifacts } from "./graders/run-artifacts.js";
import { gradeTerminalReason } from "./graders/supervision.js";
import type { Evaluator } from "./types.js";

/** Missing truth: readiness records blocked, no coder is spawned, the terminal reason is concrete. */
export const evaluate: Evaluator = async (scenario, run) => {
  const a = await loadRunArtifacts(run.taskDir);
  return grade([...(await gradeStoppedLane(a, run, scenario.expected)), ...gradeTerminalReason(a)]);
};
