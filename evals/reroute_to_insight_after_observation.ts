import { grade } from "./grade.js";
import { gradeStoppedLane } from "./graders/profiles.js";
import { loadRunArtifacts } from "./graders/run-artifacts.js";
import type { Evaluator } from "./types.js";

/** Diagnosis, not implementation: rerouted to insight with an auditable handoff, no coder spawned. */
export const evaluate: Evaluator = async (scenario, run) =>
  grade(await gradeStoppedLane(await loadRunArtifacts(run.taskDir), run, scenario.expected));
