import { grade } from "./grade.js";
import { gradeObserverRun } from "./graders/profiles.js";
import { loadRunArtifacts } from "./graders/run-artifacts.js";
import type { Evaluator } from "./types.js";

/** Observer node alone: the error is confirmed from the user's log and a command devflow saw fail on base. */
export const evaluate: Evaluator = async (scenario, run) =>
  grade(
    gradeObserverRun(await loadRunArtifacts(run.taskDir), run, scenario.expected, {
      requireLogEvidence: true,
    }),
  );
