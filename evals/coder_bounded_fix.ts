import { grade } from "./grade.js";
import { gradeCoderRun } from "./graders/profiles.js";
import { loadRunArtifacts } from "./graders/run-artifacts.js";
import type { Evaluator } from "./types.js";

/** One coder run plus its verifiers and the gate: the minimal fix turns the seam green inside the scoped file. */
export const evaluate: Evaluator = async (scenario, run) =>
  grade(gradeCoderRun(await loadRunArtifacts(run.taskDir), run, scenario.expected));
